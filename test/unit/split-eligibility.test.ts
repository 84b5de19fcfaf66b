import { describe, expect, it } from "vitest";
import type { JobSpec } from "../../src/jobs/request/job-request.ts";
import { ALLOWED_FILTERS } from "../../src/jobs/policy/filter-tables.ts";
import { FRAME_BY_FRAME_FILTERS, SPLIT_PRESETS, splitShape } from "../../src/jobs/split/split-eligibility.ts";
import { planSplitTasks } from "../../src/jobs/split/split-tasks.ts";
import { expandPresetJob } from "../../src/presets/expand-preset.ts";
import { toJobSpec } from "../../src/jobs/request/job-request.ts";
import { mp4, shapeOf, spec } from "./split-job-fixtures.ts";

describe("which jobs a split encode can do", () => {
  const job = (args: string[], over: Partial<JobSpec> = {}): JobSpec => ({
    binary: "ffmpeg",
    args,
    inputs: { video: { type: "url", url: "https://media.example.com/a.mp4" } },
    outputs: { out: { fileName: "out.mp4", contentType: "video/mp4" } },
    webhookUrl: null,
    ...over,
  });
  const typical = [
    "-i",
    "{{video}}",
    "-vf",
    "scale=-2:720,format=yuv420p",
    "-c:v",
    "libx264",
    "-preset",
    "medium",
    "-crf",
    "20",
    "-c:a",
    "aac",
    "-b:a",
    "128k",
    "-movflags",
    "+faststart",
    "{{out}}",
  ];

  it("takes one input, frame-by-frame filters, x264 or x265 with their options, the audio's, and an MP4, MOV or MKV", () => {
    expect(splitShape(job(typical))).toEqual({
      shape: {
        input: "video",
        output: "out",
        encoding: {
          videoFilters: "scale=-2:720,format=yuv420p",
          videoArgs: ["-c:v", "libx264", "-preset", "medium", "-crf", "20"],
          audioArgs: ["-c:a", "aac", "-b:a", "128k"],
          outputArgs: ["-movflags", "+faststart"],
          muxer: "mp4",
          defaultStreams: true,
        },
      },
    });
    const silent = splitShape(
      job(["-i", "{{video}}", "-c:v", "libx265", "-an", "{{out}}"], {
        outputs: { out: { fileName: "out.mkv", contentType: "video/x-matroska" } },
      }),
    );
    expect(silent).toMatchObject({ shape: { encoding: { audioArgs: null, muxer: "matroska" } } });
    // Streams mapped: only those. The video alone is a silent output, as one run makes it.
    const videoOnly = splitShape(job(["-i", "{{video}}", "-map", "0:V:0", "-c:v", "libx264", "{{out}}"]));
    expect(videoOnly).toMatchObject({ shape: { encoding: { audioArgs: null, defaultStreams: false } } });
    const both = splitShape(job(["-i", "{{video}}", "-map", "0:V:0", "-map", "0:a:0", "-c:v", "libx264", "{{out}}"]));
    expect(both).toMatchObject({ shape: { audioMapped: true, encoding: { audioArgs: [], defaultStreams: false } } });
  });

  it("refuses, saying where and why, what cannot be done apart", () => {
    const issues = (spec: JobSpec) =>
      "issues" in splitShape(spec)
        ? (splitShape(spec) as { issues: { path: string[]; message: string }[] }).issues
        : [];
    expect(issues(job(["-i", "{{video}}", "-vf", "yadif,scale=-2:720", "-c:v", "libx264", "{{out}}"]))).toEqual([
      {
        path: ["ffmpegArgs", "3"],
        message: expect.stringMatching(/^filter "yadif" uses other frames or changes timing/),
      },
    ]);
    expect(issues(job(["-i", "{{video}}", "-vf", "fps=24", "-c:v", "libx264", "{{out}}"]))[0].message).toMatch(
      /^filter "fps"/,
    );
    expect(issues(job(["-i", "{{video}}", "-vf", "", "-c:v", "libx264", "{{out}}"]))[0].message).toMatch(
      /^the filter chain is empty or could not be read/,
    );
    expect(issues(job(["-i", "{{video}}", "-c:v", "libvpx-vp9", "{{out}}"]))).toEqual([
      {
        path: ["ffmpegArgs", "3"],
        message: 'a split encode joins libx264 or libx265 segments without re-encoding: not "libvpx-vp9"',
      },
    ]);
    expect(issues(job(["-ss", "10", "-i", "{{video}}", "-c:v", "libx264", "{{out}}"]))[0]).toMatchObject({
      path: ["ffmpegArgs", "0"],
      message: expect.stringMatching(/^"-ss" is not something a split encode can do apart/),
    });
    expect(issues(job(["-i", "{{video}}", "{{out}}"]))).toEqual([
      { path: ["ffmpegArgs"], message: "name the video encoder: -c:v libx264 or -c:v libx265" },
    ]);
    expect(
      issues(
        job(typical, {
          inputs: {
            a: { type: "url", url: "https://x.example/a.mp4" },
            b: { type: "url", url: "https://x.example/b.mp4" },
          },
        }),
      )[0].message,
    ).toBe("a split encode reads one video input (this job has 2)");
    expect(
      issues(job(typical, { outputs: { out: { fileName: "out.webm", contentType: "video/webm" } } }))[0].path,
    ).toEqual(["outputs", "out", "fileName"]);
    expect(issues(job(typical, { binary: "ffprobe" }))[0].path).toEqual(["parallel"]);
  });

  it("lists only filters the policy allows (so a drift in either shows here)", () => {
    for (const f of FRAME_BY_FRAME_FILTERS) expect(ALLOWED_FILTERS as readonly string[]).toContain(f);
  });
});

describe("presets that can be split", () => {
  it("are those whose typical command is a split encode; the others are refused at parallel", () => {
    for (const preset of SPLIT_PRESETS) {
      const expanded = expandPresetJob({
        mode: "preset",
        preset,
        inputs: { video: { type: "url", url: "https://media.example.com/a.mp4" } },
      });
      if ("issues" in expanded) throw new Error(JSON.stringify(expanded.issues));
      const spec = {
        ...toJobSpec(expanded.request),
        mode: "preset" as const,
        preset,
        parallel: { segmentSeconds: 60, maxWorkers: 4 },
      };
      expect(splitShape(spec), preset).toHaveProperty("shape");
    }
    const webm = expandPresetJob({
      mode: "preset",
      preset: "webm",
      inputs: { video: { type: "url", url: "https://media.example.com/a.mp4" } },
    });
    if ("issues" in webm) throw new Error(JSON.stringify(webm.issues));
    expect(splitShape({ ...toJobSpec(webm.request), mode: "preset", preset: "webm" })).toEqual({
      issues: [
        {
          path: ["parallel"],
          message: expect.stringMatching(/preset webm cannot be split: of the presets, web-mp4 can/),
        },
      ],
    });
  });

  it("plan a deinterlaced picture (yadif looks at the neighbouring frames) as not a split encode", () => {
    const args = [
      "-i",
      "{{video}}",
      "-map",
      "0:V:0",
      "-map",
      "0:a:0",
      "-vf",
      "yadif=mode=send_frame,scale=-2:720,format=yuv420p",
      "-c:v",
      "libx264",
      "-c:a",
      "aac",
      "{{out}}",
    ];
    expect(splitShape(spec(args))).toMatchObject({
      issues: [{ message: expect.stringMatching(/filter "yadif" uses other frames/) }],
    });
    const mapped = shapeOf([
      "-i",
      "{{video}}",
      "-map",
      "0:V:0",
      "-map",
      "0:a:0",
      "-c:v",
      "libx264",
      "-c:a",
      "aac",
      "{{out}}",
    ]);
    expect(mapped.audioMapped).toBe(true);
    // One run would fail on an input without the audio it maps: so does the split, run whole.
    expect(planSplitTasks({ ...mp4, hasAudio: false, audioStreams: 0 }, mapped, { segmentSeconds: 20 })).toMatchObject([
      { params: { kind: "whole" } },
    ]);
    expect(splitShape(spec(["-i", "{{video}}", "-map", "0:s:0", "-c:v", "libx264", "{{out}}"]))).toHaveProperty(
      "issues",
    );
  });
});
