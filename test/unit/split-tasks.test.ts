import { describe, expect, it } from "vitest";
import type { JobSpec } from "../../src/jobs/request/job-request.ts";
import { checkArguments } from "../../src/jobs/policy/argument-policy.ts";
import { declaredNames } from "../../src/jobs/policy/declared-names.ts";
import { inputSafetyOptions } from "../../src/jobs/runner-request/command-line.ts";
import { scanPlaceholders } from "../../src/jobs/request/placeholders.ts";
import { SPLIT_PRESETS, splitShape, type SplitShape } from "../../src/jobs/split/split-eligibility.ts";
import { expandPresetJob } from "../../src/presets/expand-preset.ts";
import { toJobSpec } from "../../src/jobs/request/job-request.ts";
import { splitFactsOf, videoLengthSeconds, type SplitFacts } from "../../src/jobs/split/split-facts.ts";
import { describeTask, planSplitTasks } from "../../src/jobs/split/split-tasks.ts";
import { splitProgress } from "../../src/jobs/split/split-progress.ts";
import type { JobTask } from "../../src/jobs/split/split-task.ts";

const spec = (args: string[], fileName = "out.mp4"): JobSpec => ({
  binary: "ffmpeg", args, inputs: { video: { type: "url", url: "https://media.example.com/a.mp4" } }, outputs: { out: { fileName, contentType: "video/mp4" } }, webhookUrl: null,
});
const shapeOf = (args: string[], fileName?: string): SplitShape => {
  const s = splitShape(spec(args, fileName));
  if (!("shape" in s)) throw new Error(JSON.stringify(s.issues));
  return s.shape;
};
const withAudio = shapeOf(["-i", "{{video}}", "-c:v", "libx264", "-c:a", "aac", "{{out}}"]);
const mp4: SplitFacts = { format: "mov,mp4,m4a,3gp,3g2,mj2", formatStartSeconds: 0, formatDurationSeconds: 61, video: { startSeconds: 0.5, durationSeconds: 60.5, frameRate: "30000/1001" }, hasAudio: true, videoStreams: 1, audioStreams: 1 };

describe("a split job's tasks", () => {
  it("are its audio and its segments side by side, then the join, which needs them all", () => {
    const tasks = planSplitTasks(mp4, withAudio, { segmentSeconds: 20 });
    expect(tasks.map((t) => [t.name, t.needs])).toEqual([
      ["audio", []], ["segment-0", []], ["segment-1", []], ["segment-2", []], ["join", ["segment-0", "segment-1", "segment-2", "audio"]],
    ]);
    // 20 s at 30000/1001 is 599.4 frames; the last runs to the video's end (61 s): 20.5 s, 614.4 frames.
    expect(tasks[2].params).toEqual({ kind: "segment", segment: { index: 1, startSeconds: 20.5, endSeconds: 40.5 }, formatStartSeconds: 0, constantRate: "30000/1001", expectedFrames: 599 });
    expect(tasks[3].params).toMatchObject({ segment: { index: 2, endSeconds: null }, expectedFrames: 614 });
    // The video starts half a second into the file: the join puts it back there.
    expect(tasks[4].params).toEqual({ kind: "join", segments: 3, audio: true, videoDelaySeconds: 0.5 });
  });

  it("have no audio task when the job drops the audio or the input has none", () => {
    const noAudio = shapeOf(["-i", "{{video}}", "-c:v", "libx264", "-an", "{{out}}"]);
    expect(planSplitTasks(mp4, noAudio, { segmentSeconds: 20 }).map((t) => t.name)).not.toContain("audio");
    expect(planSplitTasks({ ...mp4, hasAudio: false }, withAudio, { segmentSeconds: 20 }).at(-1)!.params).toMatchObject({ kind: "join", audio: false });
  });

  it("are one whole run, with the reason, for an input that cannot be cut or is too short to gain", () => {
    const reason = (facts: SplitFacts, segmentSeconds = 20) => {
      const [only, ...rest] = planSplitTasks(facts, withAudio, { segmentSeconds });
      expect(rest).toEqual([]);
      return only.params.kind === "whole" ? only.params.reason : null;
    };
    expect(reason({ ...mp4, format: "mpegts" })).toMatch(/MPEG-TS/);
    expect(reason({ ...mp4, video: null })).toMatch(/no video/);
    expect(reason(mp4, 40)).toMatch(/shorter than two segments of 40 s/);
    expect(reason({ ...mp4, video: { ...mp4.video!, frameRate: "" } })).toMatch(/frame rate/);
    expect(reason({ ...mp4, audioStreams: 2 })).toMatch(/several video or audio streams/);
    // Matroska keeps the frames as they come: no rate needed.
    expect(planSplitTasks({ ...mp4, video: { ...mp4.video!, frameRate: "" } }, shapeOf(["-i", "{{video}}", "-c:v", "libx264", "{{out}}"], "out.mkv"), { segmentSeconds: 20 })).toHaveLength(5);
  });

  it("are named in errors by what they cover", () => {
    const [, seg] = planSplitTasks(mp4, withAudio, { segmentSeconds: 20 });
    expect(describeTask(seg.name, seg.params)).toBe("segment 0 (0.5-20.5 s)");
    expect(describeTask("join", { kind: "join", segments: 2, audio: false, videoDelaySeconds: 0 })).toBe("the join");
  });
});

describe("what a plan reads of ffprobe", () => {
  it("takes the first video that is not cover art, its start, length and rate, and whether there is audio", () => {
    const facts = splitFactsOf({
      format: { format_name: "matroska,webm", start_time: "5.000000", duration: "20.500000" },
      streams: [
        { codec_type: "video", disposition: { attached_pic: 1 }, r_frame_rate: "90000/1", start_time: "0" },
        { codec_type: "video", disposition: { attached_pic: 0 }, r_frame_rate: "25/1", start_time: "5.040000" },
        { codec_type: "audio", start_time: "5.000000" },
      ],
    });
    expect(facts).toEqual({ format: "matroska,webm", formatStartSeconds: 5, formatDurationSeconds: 20.5, video: { startSeconds: 5.04, durationSeconds: null, frameRate: "25/1" }, hasAudio: true, videoStreams: 1, audioStreams: 1 });
    expect(splitFactsOf({ format: { format_name: "mp3" }, streams: [{ codec_type: "audio" }] })).toMatchObject({ video: null, hasAudio: true });
    expect(splitFactsOf(null)).toBeNull();
  });
});

describe("a split job's progress", () => {
  const task = (over: Partial<JobTask>): JobTask => ({ name: "t", needs: [], params: { kind: "audio" }, status: "pending", runnerId: null, attempts: 0, runtimeMs: 0, result: null, errorMessage: null, startedAt: null, finishedAt: null, ...over });
  const segments = [0, 1, 2].map((i) => task({ name: `segment-${i}`, params: { kind: "segment", segment: { index: i, startSeconds: i * 10, endSeconds: i === 2 ? null : (i + 1) * 10 }, formatStartSeconds: 0, constantRate: null, expectedFrames: 250 } }));
  it("counts the video seconds of the finished segments up to 90 %, then the join", () => {
    expect(splitProgress(segments).percent).toBe(0);
    expect(splitProgress([{ ...segments[0], status: "completed" }, segments[1], segments[2]]).percent).toBe(30);
    const encoded = segments.map((s) => ({ ...s, status: "completed" as const }));
    expect(splitProgress([...encoded, task({ name: "join", params: { kind: "join", segments: 3, audio: false, videoDelaySeconds: 0 } })]).percent).toBe(90);
    expect(splitProgress([...encoded, task({ name: "join", status: "completed", params: { kind: "join", segments: 3, audio: false, videoDelaySeconds: 0 } })]).percent).toBe(100);
  });

  it("counts a segment under way by the frames its runner reported, never whole until it ends", () => {
    const running = segments.map((s) => ({ ...s, status: "running" as const }));
    // Half of the first segment's 250 frames and a fifth of the second's: (0.5 + 0.2) of 30 s of 30, of 90 %.
    expect(splitProgress(running, null, new Map([["segment-0", 125], ["segment-1", 50]]))).toEqual({ percent: 21, outTimeSeconds: null, speed: null, frames: null });
    // More frames than expected (a variable rate's estimate) still leave the segment short of done.
    expect(splitProgress(running, null, new Map([["segment-0", 400]])).percent).toBe(29.7);
    // A pending segment's old figure, or one with no estimate, counts nothing.
    expect(splitProgress(segments, null, new Map([["segment-0", 125]])).percent).toBe(0);
    const unknownRate = running.map((s) => ({ ...s, params: { ...s.params, expectedFrames: null } }));
    expect(splitProgress(unknownRate, null, new Map([["segment-0", 125]])).percent).toBe(0);
  });
});

describe("the join's concat: of its segments", () => {
  const names = declaredNames(["part0", "part1", "audio"], ["out"], [], false, []);
  const join = ["-i", "concat:{{part0}}|{{part1}}", "-i", "{{audio}}", "-map", "0:v:0", "-map", "1:a:0", "-c", "copy", "{{out}}"];
  it("is the service's alone: a client's command may not read concat:, the join's may, of declared inputs only", () => {
    expect(checkArguments("ffmpeg", join, names)).toEqual([{ index: 1, message: "the value of -i must be an input placeholder like {{video}}" }]);
    expect(checkArguments("ffmpeg", join, names, { concatInputs: true })).toEqual([]);
    for (const bad of ["concat:{{part0}}|/etc/passwd", "concat:{{part0}}|{{nope}}", "concat:{{part0}}|{{out}}", "concat:http://x/a.ts"]) {
      expect(checkArguments("ffmpeg", ["-i", bad, "{{out}}"], names, { concatInputs: true }), bad).toHaveLength(1);
    }
  });
  it("reads its parts as files (copied, not streamed), with concat and file the only protocols", () => {
    expect(scanPlaceholders(join).uses.filter((u) => !u.whole).map((u) => u.name)).toEqual(["part0", "part1"]);
    expect(inputSafetyOptions("concat:/job/in/part0.ts|/job/in/part1.ts").slice(0, 2)).toEqual(["-protocol_whitelist", "concat,file"]);
  });
});

describe("presets that can be split", () => {
  it("are those whose typical command is a split encode; the others are refused at parallel", () => {
    for (const preset of SPLIT_PRESETS) {
      const expanded = expandPresetJob({ mode: "preset", preset, inputs: { video: { type: "url", url: "https://media.example.com/a.mp4" } } });
      if ("issues" in expanded) throw new Error(JSON.stringify(expanded.issues));
      const spec = { ...toJobSpec(expanded.request), mode: "preset" as const, preset, parallel: { segmentSeconds: 60, maxWorkers: 4 } };
      expect(splitShape(spec), preset).toHaveProperty("shape");
    }
    const webm = expandPresetJob({ mode: "preset", preset: "webm", inputs: { video: { type: "url", url: "https://media.example.com/a.mp4" } } });
    if ("issues" in webm) throw new Error(JSON.stringify(webm.issues));
    expect(splitShape({ ...toJobSpec(webm.request), mode: "preset", preset: "webm" })).toEqual({ issues: [{ path: ["parallel"], message: expect.stringMatching(/preset webm cannot be split: of the presets, web-mp4 can/) }] });
  });

  it("plan a deinterlaced picture (yadif looks at the neighbouring frames) as not a split encode", () => {
    const args = ["-i", "{{video}}", "-map", "0:V:0", "-map", "0:a:0", "-vf", "yadif=mode=send_frame,scale=-2:720,format=yuv420p", "-c:v", "libx264", "-c:a", "aac", "{{out}}"];
    expect(splitShape(spec(args))).toMatchObject({ issues: [{ message: expect.stringMatching(/filter "yadif" uses other frames/) }] });
    const mapped = shapeOf(["-i", "{{video}}", "-map", "0:V:0", "-map", "0:a:0", "-c:v", "libx264", "-c:a", "aac", "{{out}}"]);
    expect(mapped.audioMapped).toBe(true);
    // One run would fail on an input without the audio it maps: so does the split, run whole.
    expect(planSplitTasks({ ...mp4, hasAudio: false, audioStreams: 0 }, mapped, { segmentSeconds: 20 })).toMatchObject([{ params: { kind: "whole" } }]);
    expect(splitShape(spec(["-i", "{{video}}", "-map", "0:s:0", "-c:v", "libx264", "{{out}}"]))).toHaveProperty("issues");
  });
});

describe("a split's video length", () => {
  it("is what the headers claim, unless the file's packets were measured to end sooner", () => {
    expect(videoLengthSeconds(mp4)).toBe(60.5);
    expect(videoLengthSeconds({ ...mp4, videoEndSeconds: null })).toBe(60.5);
    // Measured where the last packet ends: 13.5 s in, the video starting at 0.5 s.
    expect(videoLengthSeconds({ ...mp4, videoEndSeconds: 13.5 })).toBe(13);
    expect(videoLengthSeconds({ ...mp4, video: { ...mp4.video!, durationSeconds: 432000 }, videoEndSeconds: 13.5 })).toBe(13);
    // Never longer than claimed.
    expect(videoLengthSeconds({ ...mp4, videoEndSeconds: 100 })).toBe(60.5);
  });
});
