import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The benchmark's inputs, made once per machine with the host's ffmpeg (test pattern + tone). */
export function benchFixtures(quick: boolean) {
  const dir = join(tmpdir(), "ffjobs-bench-fixtures-v1");
  mkdirSync(dir, { recursive: true });
  const longSeconds = quick ? 10 : 60;
  const make = (name: string, size: string, seconds: number) => {
    const path = join(dir, name);
    if (existsSync(path)) return;
    const partial = `${path}.partial.mp4`;
    execFileSync("ffmpeg", [
      "-v",
      "error",
      "-y",
      "-f",
      "lavfi",
      "-i",
      `testsrc2=size=${size}:rate=30:duration=${seconds}`,
      "-f",
      "lavfi",
      "-i",
      `sine=frequency=440:duration=${seconds}`,
      "-c:v",
      "libx264",
      "-preset",
      "veryfast",
      "-pix_fmt",
      "yuv420p",
      "-c:a",
      "aac",
      "-shortest",
      partial,
    ]);
    renameSync(partial, path);
  };
  make("clip720.mp4", "1280x720", 10);
  make("clip5.mp4", "1280x720", 5);
  make(quick ? "long1080-quick.mp4" : "long1080.mp4", "1920x1080", longSeconds);
  return { dir, longSeconds, longName: quick ? "long1080-quick.mp4" : "long1080.mp4" };
}
