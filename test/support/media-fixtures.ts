import { execFileSync } from "node:child_process";
import { mkdirSync, existsSync, writeFileSync } from "node:fs";
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
  const text = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };
  return {
    dir,
    clip: make("clip.mp4", [
      "-f",
      "lavfi",
      "-i",
      "testsrc=size=320x240:rate=25:duration=3",
      "-f",
      "lavfi",
      "-i",
      "sine=frequency=440:duration=3",
      "-c:v",
      "libx264",
      "-pix_fmt",
      "yuv420p",
      "-c:a",
      "aac",
      "-shortest",
    ]),
    /** Long enough to still be running when a test cancels it. */
    long: make("long.mp4", [
      "-f",
      "lavfi",
      "-i",
      "testsrc2=size=640x360:rate=30:duration=120",
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
      "-pix_fmt",
      "yuv420p",
    ]),
    /** One second of frames, then the timestamps jump ten minutes ahead: read with -re, ffmpeg waits idle. */
    gap: make("gap.mkv", [
      "-f",
      "lavfi",
      "-i",
      "testsrc=size=64x64:rate=10:duration=2",
      "-vf",
      "setpts=PTS+gte(N\\,10)*600/TB",
      "-fps_mode",
      "passthrough",
      "-c:v",
      "libx264",
      "-pix_fmt",
      "yuv420p",
    ]),
    tone: make("tone.wav", ["-f", "lavfi", "-i", "sine=frequency=220:duration=2"]),
    logo: make("logo.png", ["-f", "lavfi", "-i", "color=c=red@0.8:s=48x48,format=rgba", "-frames:v", "1"]),
    /** 300 KB on disk, 100 megapixels decoded: a decompression bomb. */
    bomb: make("bomb.png", ["-f", "lavfi", "-i", "color=black:s=10000x10000", "-frames:v", "1"]),
    subs: text(
      "subs.srt",
      "1\n00:00:00,000 --> 00:00:02,000\nHello from ffjobs\n\n2\n00:00:02,000 --> 00:00:03,000\nBye\n",
    ),
    /** HLS and DASH playlists dressed up as MP4 uploads, pointing at a local file. */
    hlsInDisguise: text(
      "playlist.mp4",
      "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\nfile:///etc/passwd\n#EXT-X-ENDLIST\n",
    ),
    dashInDisguise: text(
      "manifest.mp4",
      '<?xml version="1.0"?><MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT1S"><Period><AdaptationSet><Representation id="1" bandwidth="1"><BaseURL>/etc/passwd</BaseURL></Representation></AdaptationSet></Period></MPD>',
    ),
  };
}

/** ffprobe's JSON (format and streams) of a local file or a URL, as the tests check outputs. */
export function ffprobeJson(fileOrUrl: string): { format: Record<string, any>; streams: Record<string, any>[] } {
  return JSON.parse(
    execFileSync("ffprobe", ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", fileOrUrl], {
      encoding: "utf8",
    }),
  );
}
