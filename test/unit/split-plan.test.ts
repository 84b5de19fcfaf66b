import { describe, expect, it } from "vitest";
import type { JobSpec } from "../../src/jobs/request/job-request.ts";
import { ALLOWED_FILTERS } from "../../src/jobs/policy/filter-tables.ts";
import { FRAME_BY_FRAME_FILTERS, splitShape } from "../../src/jobs/split/split-eligibility.ts";
import { joinArgs, planSegments, segmentArgs } from "../../src/jobs/split/split-plan.ts";

describe("a split encode's segments", () => {
  it("cover the video from its first timestamp; the last runs to the end and is one to two segments long", () => {
    expect(planSegments({ startSeconds: 5, lengthSeconds: 21 }, 6)).toEqual([
      { index: 0, startSeconds: 5, endSeconds: 11 },
      { index: 1, startSeconds: 11, endSeconds: 17 },
      { index: 2, startSeconds: 17, endSeconds: null },
    ]);
    // Shorter than a segment: one, the whole video.
    expect(planSegments({ startSeconds: 0, lengthSeconds: 4 }, 6)).toEqual([{ index: 0, startSeconds: 0, endSeconds: null }]);
  });

  it("cut by the frames' own timestamps after a seek relative to the input's start, and join in order", () => {
    const encoding = { videoFilters: "scale=-2:720", videoArgs: ["-c:v", "libx264", "-crf", "20"], audioArgs: null, outputArgs: [], muxer: "mp4" as const };
    const args = segmentArgs({ index: 1, startSeconds: 11, endSeconds: 17 }, encoding, { input: "in.mp4", output: "seg1.ts", formatStartSeconds: 4.977, constantRate: "30000/1001" });
    expect(args.slice(0, 6)).toEqual(["-copyts", "-noaccurate_seek", "-ss", "6.023000", "-i", "in.mp4"]);
    // MP4 is written at a constant rate: the frames are put on its grid before the cut, as one run would.
    expect(args[args.indexOf("-vf") + 1]).toBe("fps=30000/1001,trim=start=11.000000:end=17.000000,scale=-2:720");
    expect(args.slice(-3)).toEqual(["-f", "mpegts", "seg1.ts"]);
    expect(joinArgs(encoding, { segments: ["s0.ts", "s1.ts"], audio: null, output: "out.mp4", videoDelaySeconds: 0 })).toEqual(["-i", "concat:s0.ts|s1.ts", "-map", "0:v:0", "-c", "copy", "out.mp4"]);
  });
});

describe("which jobs a split encode can do", () => {
  const job = (args: string[], over: Partial<JobSpec> = {}): JobSpec => ({
    binary: "ffmpeg", args, inputs: { video: { type: "url", url: "https://media.example.com/a.mp4" } },
    outputs: { out: { fileName: "out.mp4", contentType: "video/mp4" } }, webhookUrl: null, ...over,
  });
  const typical = ["-i", "{{video}}", "-vf", "scale=-2:720,format=yuv420p", "-c:v", "libx264", "-preset", "medium", "-crf", "20", "-c:a", "aac", "-b:a", "128k", "-movflags", "+faststart", "{{out}}"];

  it("takes one input, frame-by-frame filters, x264 or x265 with their options, the audio's, and an MP4, MOV or MKV", () => {
    expect(splitShape(job(typical))).toEqual({ shape: { input: "video", output: "out", encoding: {
      videoFilters: "scale=-2:720,format=yuv420p", videoArgs: ["-c:v", "libx264", "-preset", "medium", "-crf", "20"],
      audioArgs: ["-c:a", "aac", "-b:a", "128k"], outputArgs: ["-movflags", "+faststart"], muxer: "mp4",
    } } });
    const silent = splitShape(job(["-i", "{{video}}", "-c:v", "libx265", "-an", "{{out}}"], { outputs: { out: { fileName: "out.mkv", contentType: "video/x-matroska" } } }));
    expect(silent).toMatchObject({ shape: { encoding: { audioArgs: null, muxer: "matroska" } } });
  });

  it("refuses, saying where and why, what cannot be done apart", () => {
    const issues = (spec: JobSpec) => ("issues" in splitShape(spec) ? (splitShape(spec) as { issues: { path: string[]; message: string }[] }).issues : []);
    expect(issues(job(["-i", "{{video}}", "-vf", "yadif,scale=-2:720", "-c:v", "libx264", "{{out}}"]))).toEqual([
      { path: ["ffmpegArgs", "3"], message: expect.stringMatching(/^filter "yadif" uses other frames or changes timing/) }]);
    expect(issues(job(["-i", "{{video}}", "-vf", "fps=24", "-c:v", "libx264", "{{out}}"]))[0].message).toMatch(/^filter "fps"/);
    expect(issues(job(["-i", "{{video}}", "-vf", "", "-c:v", "libx264", "{{out}}"]))[0].message).toMatch(/^the filter chain is empty or could not be read/);
    expect(issues(job(["-i", "{{video}}", "-c:v", "libvpx-vp9", "{{out}}"]))).toEqual([{ path: ["ffmpegArgs", "3"], message: 'a split encode joins libx264 or libx265 segments without re-encoding: not "libvpx-vp9"' }]);
    expect(issues(job(["-ss", "10", "-i", "{{video}}", "-c:v", "libx264", "{{out}}"]))[0]).toMatchObject({ path: ["ffmpegArgs", "0"], message: expect.stringMatching(/^"-ss" is not something a split encode can do apart/) });
    expect(issues(job(["-i", "{{video}}", "{{out}}"]))).toEqual([{ path: ["ffmpegArgs"], message: "name the video encoder: -c:v libx264 or -c:v libx265" }]);
    expect(issues(job(typical, { inputs: { a: { type: "url", url: "https://x.example/a.mp4" }, b: { type: "url", url: "https://x.example/b.mp4" } } }))[0].message).toBe("a split encode reads one video input (this job has 2)");
    expect(issues(job(typical, { outputs: { out: { fileName: "out.webm", contentType: "video/webm" } } }))[0].path).toEqual(["outputs", "out", "fileName"]);
    expect(issues(job(typical, { binary: "ffprobe" }))[0].path).toEqual(["parallel"]);
  });

  it("lists only filters the policy allows (so a drift in either shows here)", () => {
    for (const f of FRAME_BY_FRAME_FILTERS) expect(ALLOWED_FILTERS as readonly string[]).toContain(f);
  });
});
