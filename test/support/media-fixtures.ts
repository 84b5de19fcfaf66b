import { execFileSync } from "node:child_process";
import { mkdirSync, existsSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";

/** Small real media files made with the host's ffmpeg, cached per machine under the tmp dir. */
export function mediaFixtures() {
  const dir = join(tmpdir(), "ffjobs-fixtures-v1");
  mkdirSync(dir, { recursive: true });
  const make = (name: string, args: string[]) => {
    const path = join(dir, name);
    if (!existsSync(path)) execFileSync("ffmpeg", ["-v", "error", "-y", ...args, path]);
    return path;
  };
  return {
    dir,
    clip: make("clip.mp4", [
      "-f", "lavfi", "-i", "testsrc=size=320x240:rate=25:duration=3", "-f", "lavfi", "-i", "sine=frequency=440:duration=3",
      "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest",
    ]),
    /** Long enough to still be running when a test cancels it. */
    long: make("long.mp4", [
      "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30:duration=120", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
    ]),
    tone: make("tone.wav", ["-f", "lavfi", "-i", "sine=frequency=220:duration=2"]),
  };
}
