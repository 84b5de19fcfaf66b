import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { jobBody, toRemoteCommand } from "../../cli/src/remote-command.ts";
import { progressLine } from "../../cli/src/run-remote.ts";
import type { Job } from "../../client/src/index.ts";
import { checkJobRequest } from "../../src/jobs/request/check-job-request.ts";
import { createJobSchema } from "../../src/api/schemas/job-request.ts";

/** An ffmpeg command line as the CLI turns it into a job, and that job as the API would check it. */
function translate(argv: string[]) {
  const cmd = toRemoteCommand("ffmpeg", argv);
  const body = jobBody(cmd, Object.fromEntries(cmd.uploads.map((u) => [u.name, `asset-${u.name}`])));
  const request = createJobSchema.parse({
    ...body,
    inputs: Object.fromEntries(
      Object.keys(body.inputs).map((n) => [n, { type: "url", url: `https://media.example/${n}` }]),
    ),
  });
  return { cmd, body, refused: checkJobRequest(request) };
}

const dir = mkdtempSync(join(tmpdir(), "cli-translate-"));
const video = join(dir, "in.mp4");
const subs = join(dir, "my subs.srt");
const cube = join(dir, "look.cube");
for (const f of [video, subs, cube]) writeFileSync(f, "x");

describe("the CLI's command translation", () => {
  it("turns an image-sequence pattern into a directory output whose files all come back beside it", () => {
    const { cmd, body, refused } = translate(["-i", video, "-vf", "fps=1", join(dir, "img%03d.png")]);
    expect(refused).toEqual([]);
    expect(body.outputs.out0).toEqual({ kind: "directory", fileName: "img%03d.png" });
    expect(cmd.downloads[0]).toMatchObject({ directory: true, pattern: true, path: join(dir, "img%03d.png") });
  });

  it("runs the segment muxer into a directory output, its -segment_list a file in it", () => {
    const { body, refused } = translate([
      "-i",
      video,
      "-c",
      "copy",
      "-f",
      "segment",
      "-segment_time",
      "1",
      "-segment_list",
      join(dir, "parts.m3u8"),
      join(dir, "part%03d.ts"),
    ]);
    expect(refused).toEqual([]);
    expect(body.outputs.out0).toEqual({ kind: "directory", fileName: "part%03d.ts" });
    expect(body.ffmpegArgs).toContain("{{out0/parts.m3u8}}");
    // HLS segments named beside the playlist, likewise.
    const hls = translate([
      "-i",
      video,
      "-f",
      "hls",
      "-hls_segment_filename",
      join(dir, "seg_%03d.ts"),
      join(dir, "video.m3u8"),
    ]);
    expect(hls.refused).toEqual([]);
    expect(hls.body.ffmpegArgs).toContain("{{out0/seg_%03d.ts}}");
  });

  it("refuses a list file in another folder than its output, saying where it must be", () => {
    expect(() =>
      toRemoteCommand("ffmpeg", [
        "-i",
        video,
        "-f",
        "segment",
        "-segment_list",
        "/tmp/elsewhere/list.m3u8",
        join(dir, "p%d.ts"),
      ]),
    ).toThrow(/must be a plain file name in the same folder as/);
  });

  it("sends local files named inside filter graphs as inputs, written plain, quoted or escaped", () => {
    const quoted = translate([
      "-i",
      video,
      "-vf",
      `subtitles='${subs}':force_style='Fontsize=24'`,
      join(dir, "out.mp4"),
    ]);
    expect(quoted.refused).toEqual([]);
    expect(quoted.cmd.uploads.map((u) => u.path)).toEqual([video, subs]);
    expect(quoted.body.ffmpegArgs[3]).toBe("subtitles={{in1}}:force_style='Fontsize=24'");
    const named = translate([
      "-i",
      video,
      "-filter_complex",
      `[0:v]lut3d=file=${cube}[v]`,
      "-map",
      "[v]",
      join(dir, "graded.mp4"),
    ]);
    expect(named.refused).toEqual([]);
    expect(named.body.ffmpegArgs[3]).toBe("[0:v]lut3d=file={{in1}}[v]");
    // ffmpeg unescapes a graph twice (the graph, then the filter's options): a ':' needs quotes and \:, or \\:.
    const url = translate(["-i", video, "-vf", "subtitles='https\\://media.example/s.srt'", join(dir, "out.mp4")]);
    expect(url.cmd.urls.map((u) => u.url)).toEqual(["https://media.example/s.srt"]);
    expect(url.body.ffmpegArgs[3]).toBe("subtitles={{in1}}");
    const twice = translate(["-i", video, "-vf", "subtitles=https\\\\://media.example/s.srt", join(dir, "out.mp4")]);
    expect(twice.body.ffmpegArgs[3]).toBe("subtitles={{in1}}");
  });

  it("says a file named in a filter graph is not there, as ffmpeg would", () => {
    expect(() => toRemoteCommand("ffmpeg", ["-i", video, "-vf", "ass=missing.ass", "out.mp4"])).toThrow(
      /missing\.ass: No such file or directory/,
    );
  });

  it("passes bitstream filters, -vbr, -sws_flags and -err_detect through for the service to check", () => {
    const { refused } = translate([
      "-err_detect",
      "ignore_err",
      "-i",
      video,
      "-c:v",
      "copy",
      "-bsf:v",
      "h264_mp4toannexb",
      "-c:a",
      "libopus",
      "-vbr",
      "on",
      "-sws_flags",
      "lanczos",
      join(dir, "out.mkv"),
    ]);
    expect(refused).toEqual([]);
  });
});

describe("the CLI's status line while a remote job runs", () => {
  const line = (progress: Job["progress"]) => progressLine({ progress } as Job).trimEnd();
  it("reads like ffmpeg's own: frames, time, speed, and the percent when known", () => {
    expect(line({ percent: 42.5, outTimeSeconds: 61.5, speed: 2.1, frames: 1845 })).toBe(
      "frame= 1845 time=00:01:01.50 speed=2.1x 42.5%",
    );
    // ffprobe and split jobs report no frames or time; the percent alone moves.
    expect(line({ percent: 30, outTimeSeconds: null, speed: null, frames: null })).toBe(
      "time=00:00:00.00 speed=N/A 30%",
    );
  });
});
