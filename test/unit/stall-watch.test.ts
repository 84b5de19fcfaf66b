import { describe, expect, it } from "vitest";
import { createStallWatch } from "../../container/src/stall-watch.ts";

function clock() {
  let t = 1_000_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}
const windows = { idleMs: 60_000, busyMs: 600_000 };

describe("stall watch decisions", () => {
  it("calls an ffmpeg with no new output and no CPU stalled once the idle window passes, not before", () => {
    const c = clock();
    const w = createStallWatch("ffmpeg", windows, c.now);
    w.progressSeen({ out_time_us: "900000", frame: "9", total_size: "0" });
    w.cpuSampled(100);
    for (let s = 0; s < 59; s++) {
      c.advance(1000);
      w.progressSeen({ out_time_us: "900000", frame: "9", total_size: "0" }); // the same block, repeated
      w.cpuSampled(100 + s * 10); // 1% of a core: polling, not work
      expect(w.verdict()).toBeNull();
    }
    c.advance(1000);
    expect(w.verdict()).toMatch(/^ffmpeg made no progress for 60 s/);
  });

  it("gives work without output the busy window instead, and then stops it", () => {
    const c = clock();
    const w = createStallWatch("ffmpeg", windows, c.now);
    let cpu = 0;
    for (let s = 0; s < 599; s++) {
      c.advance(1000);
      cpu += 900;
      w.cpuSampled(cpu);
      w.progressSeen({ out_time_us: "N/A", frame: "0", total_size: "0" });
      expect(w.verdict()).toBeNull();
    }
    c.advance(1000);
    cpu += 900;
    w.cpuSampled(cpu);
    expect(w.verdict()).toMatch(/^ffmpeg wrote no new output for 600 s although it kept working/);
  });

  it("counts any of output time, frames or bytes as output: an audio encode whose frame count stays 0 is moving", () => {
    const c = clock();
    const w = createStallWatch("ffmpeg", { idleMs: 2000, busyMs: 5000 }, c.now);
    for (let s = 0; s < 30; s++) {
      c.advance(1000);
      w.cpuSampled(0);
      w.progressSeen({ out_time_us: String(s * 1_000_000), frame: "0", total_size: "0" });
      expect(w.verdict()).toBeNull();
    }
  });

  it("where CPU cannot be read, only the busy window applies", () => {
    const c = clock();
    const w = createStallWatch("ffmpeg", { idleMs: 2000, busyMs: 5000 }, c.now);
    for (let s = 0; s < 4; s++) {
      c.advance(1000);
      w.cpuSampled(null);
      expect(w.verdict()).toBeNull();
    }
    c.advance(1000);
    expect(w.verdict()).toMatch(/wrote no new output for 5 s/);
  });
});
