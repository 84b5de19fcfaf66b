import { describe, expect, it } from "vitest";
import type { SplitFacts } from "../../src/jobs/split/split-facts.ts";
import { describeTask, planSplitTasks } from "../../src/jobs/split/split-tasks.ts";
import { mp4, shapeOf, withAudio } from "./split-job-fixtures.ts";

describe("a split job's tasks", () => {
  it("are its audio and its segments side by side, then the join, which needs them all", () => {
    const tasks = planSplitTasks(mp4, withAudio, { segmentSeconds: 20 });
    expect(tasks.map((t) => [t.name, t.needs])).toEqual([
      ["audio", []],
      ["segment-0", []],
      ["segment-1", []],
      ["segment-2", []],
      ["join", ["segment-0", "segment-1", "segment-2", "audio"]],
    ]);
    // The slots of 30000/1001 from 20.5 s (614.39: slot 614) to 40.5 s (1213.79: slot 1214): 600 frames; the
    // last runs to the video's end (61 s, slot 1828): 614.
    expect(tasks[2].params).toEqual({
      kind: "segment",
      segment: { index: 1, startSeconds: 20.5, endSeconds: 40.5 },
      formatStartSeconds: 0,
      constantRate: "30000/1001",
      exactTimestamps: true,
      expectedFrames: 600,
      // Checked by its runner: a middle segment writes exactly the slots of its span.
      frameCount: { min: 600, max: 600 },
    });
    // The first as exactly (it fills the slots before its first decodable frame, as one run does), the last
    // within a frame of the video's end where the probe measured it, else at most its slots and one.
    expect(tasks[1].params).toMatchObject({ frameCount: { min: 599, max: 599 } });
    expect(tasks[3].params).toMatchObject({ frameCount: { max: 615 } });
    expect(planSplitTasks({ ...mp4, videoEndSeconds: 61 }, withAudio, { segmentSeconds: 20 })[3].params).toMatchObject({
      frameCount: { min: 613, max: 615 },
    });
    expect(tasks[3].params).toMatchObject({ segment: { index: 2, endSeconds: null }, expectedFrames: 614 });
    // The video starts half a second into the file: the join keeps every stream's start against the file's.
    expect(tasks[4].params).toEqual({
      kind: "join",
      segments: 3,
      audio: true,
      videoDelaySeconds: 0.5,
      formatStartSeconds: 0,
    });
  });

  it("have no audio task when the job drops the audio or the input has none", () => {
    const noAudio = shapeOf(["-i", "{{video}}", "-c:v", "libx264", "-an", "{{out}}"]);
    expect(planSplitTasks(mp4, noAudio, { segmentSeconds: 20 }).map((t) => t.name)).not.toContain("audio");
    expect(planSplitTasks({ ...mp4, hasAudio: false }, withAudio, { segmentSeconds: 20 }).at(-1)!.params).toMatchObject(
      { kind: "join", audio: false },
    );
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
    // A varying rate (a phone's 29.95 on timestamps at 30) into a constant-rate output: one run's own rule
    // picks the frames. Within 0.1 %, or unknown, it counts as constant.
    const rated = (averageFrameRate: string) => ({
      ...mp4,
      video: { ...mp4.video!, frameRate: "30/1", averageFrameRate },
    });
    expect(reason(rated("18000/601"))).toMatch(/frame rate varies \(18000\/601 on average, timestamps at 30\/1\)/);
    expect(reason(rated("429/20"))).toMatch(/frame rate varies/);
    for (const constant of ["30/1", "2998/100", "29990/1000", ""])
      expect(planSplitTasks(rated(constant), withAudio, { segmentSeconds: 20 })).toHaveLength(5);
    // Matroska keeps a varying rate as it comes: cut as any other.
    expect(
      planSplitTasks(rated("429/20"), shapeOf(["-i", "{{video}}", "-c:v", "libx264", "{{out}}"], "out.mkv"), {
        segmentSeconds: 20,
      }),
    ).toHaveLength(5);
    // Matroska keeps the frames as they come: no rate needed.
    expect(
      planSplitTasks(
        { ...mp4, video: { ...mp4.video!, frameRate: "" } },
        shapeOf(["-i", "{{video}}", "-c:v", "libx264", "{{out}}"], "out.mkv"),
        { segmentSeconds: 20 },
      ),
    ).toHaveLength(5);
  });

  it("are named in errors by what they cover", () => {
    const [, seg] = planSplitTasks(mp4, withAudio, { segmentSeconds: 20 });
    expect(describeTask(seg.name, seg.params)).toBe("segment 0 (0.5-20.5 s)");
    expect(describeTask("join", { kind: "join", segments: 2, audio: false, videoDelaySeconds: 0 })).toBe("the join");
  });
});
