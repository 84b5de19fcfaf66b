import { describe, expect, it } from "vitest";
import { createProgressParser } from "../../container/src/progress.ts";
import type { RunnerProgress } from "../../src/runner/runner-protocol.ts";

describe("ffmpeg -progress parsing", () => {
  it("emits one figure per block, split across chunks, with a percentage when the duration is known", () => {
    const seen: RunnerProgress[] = [];
    const feed = createProgressParser(10, (p) => seen.push(p));
    feed("frame=10\nout_time_us=2500000\nspe");
    feed("ed=2.5x\nprogress=continue\nout_time_us=N/A\nspeed=N/A\nprogress=continue\n");
    feed("frame=240\nout_time_us=10000000\nspeed=3x\nprogress=end\n");
    expect(seen).toEqual([
      { percent: 25, outTimeSeconds: 2.5, speed: 2.5, frames: 10 },
      { percent: null, outTimeSeconds: null, speed: null, frames: null },
      { percent: 100, outTimeSeconds: 10, speed: 3, frames: 240 },
    ]);
  });

  it("never reports 100% before the end", () => {
    const seen: RunnerProgress[] = [];
    createProgressParser(1, (p) => seen.push(p))("out_time_us=5000000\nprogress=continue\n");
    expect(seen[0].percent).toBe(99.9);
  });
});
