import { describe, expect, it } from "vitest";
import { splitProgress } from "../../src/jobs/split/split-progress.ts";
import type { JobTask } from "../../src/jobs/split/split-task.ts";

describe("a split job's progress", () => {
  const task = (over: Partial<JobTask>): JobTask => ({
    name: "t",
    needs: [],
    params: { kind: "audio" },
    status: "pending",
    runnerId: null,
    attempts: 0,
    runtimeMs: 0,
    result: null,
    errorMessage: null,
    startedAt: null,
    finishedAt: null,
    ...over,
  });
  const segments = [0, 1, 2].map((i) =>
    task({
      name: `segment-${i}`,
      params: {
        kind: "segment",
        segment: { index: i, startSeconds: i * 10, endSeconds: i === 2 ? null : (i + 1) * 10 },
        formatStartSeconds: 0,
        constantRate: null,
        expectedFrames: 250,
      },
    }),
  );
  it("counts the video seconds of the finished segments up to 90 %, then the join", () => {
    expect(splitProgress(segments).percent).toBe(0);
    expect(splitProgress([{ ...segments[0], status: "completed" }, segments[1], segments[2]]).percent).toBe(30);
    const encoded = segments.map((s) => ({ ...s, status: "completed" as const }));
    expect(
      splitProgress([
        ...encoded,
        task({ name: "join", params: { kind: "join", segments: 3, audio: false, videoDelaySeconds: 0 } }),
      ]).percent,
    ).toBe(90);
    expect(
      splitProgress([
        ...encoded,
        task({
          name: "join",
          status: "completed",
          params: { kind: "join", segments: 3, audio: false, videoDelaySeconds: 0 },
        }),
      ]).percent,
    ).toBe(100);
  });

  it("counts a segment under way by the frames its runner reported, never whole until it ends", () => {
    const running = segments.map((s) => ({ ...s, status: "running" as const }));
    // Half of the first segment's 250 frames and a fifth of the second's: (0.5 + 0.2) of 30 s of 30, of 90 %.
    expect(
      splitProgress(
        running,
        null,
        new Map([
          ["segment-0", 125],
          ["segment-1", 50],
        ]),
      ),
    ).toEqual({ percent: 21, outTimeSeconds: null, speed: null, frames: null });
    // More frames than expected (a variable rate's estimate) still leave the segment short of done.
    expect(splitProgress(running, null, new Map([["segment-0", 400]])).percent).toBe(29.7);
    // A pending segment's old figure, or one with no estimate, counts nothing.
    expect(splitProgress(segments, null, new Map([["segment-0", 125]])).percent).toBe(0);
    const unknownRate = running.map(
      (s): JobTask => (s.params.kind === "segment" ? { ...s, params: { ...s.params, expectedFrames: null } } : s),
    );
    expect(splitProgress(unknownRate, null, new Map([["segment-0", 125]])).percent).toBe(0);
  });
});
