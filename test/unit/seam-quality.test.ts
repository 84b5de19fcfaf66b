import { describe, expect, it } from "vitest";
import {
  joinSeams,
  SEAM_FRAMES,
  seamComparisonArguments,
  seamSelect,
  seamWindowsOf,
  segmentSeamsOf,
} from "../../src/jobs/split/seam-quality.ts";
import { segmentArgs, type SplitEncoding } from "../../src/jobs/split/split-plan.ts";

const encoding: SplitEncoding = {
  videoFilters: "scale=320:-2",
  videoArgs: ["-c:v", "libx264"],
  audioArgs: null,
  outputArgs: [],
  muxer: "mp4",
  defaultStreams: true,
};

describe("a split's seams report", () => {
  it("keeps a segment's edges where joins are: the first has none before it, the last none after it", () => {
    expect(seamWindowsOf({ index: 0, endSeconds: 5 }, 150)).toEqual({ head: false, tailFrom: 150 - SEAM_FRAMES });
    expect(seamWindowsOf({ index: 1, endSeconds: 10 }, 150)).toEqual({ head: true, tailFrom: 142 });
    expect(seamWindowsOf({ index: 2, endSeconds: null }, 150)).toEqual({ head: true, tailFrom: null });
    // No join at all, no count, or too few frames to tell the two edges apart: no report.
    expect(seamWindowsOf({ index: 0, endSeconds: null }, 150)).toBeNull();
    expect(seamWindowsOf({ index: 1, endSeconds: 10 }, null)).toBeNull();
    expect(seamWindowsOf({ index: 1, endSeconds: 10 }, 2 * SEAM_FRAMES - 1)).toBeNull();
    expect(seamSelect({ head: true, tailFrom: 142 })).toBe("select=lt(n\\,8)+gte(n\\,142)");
  });

  it("splits the edge frames off after every filter in the segment's one command, unencoded", () => {
    const args = segmentArgs({ index: 1, startSeconds: 5, endSeconds: 10 }, encoding, {
      input: "in.mp4",
      output: "seg.ts",
      formatStartSeconds: 0,
      constantRate: "30/1",
      seams: { output: "edges.mkv", windows: { head: true, tailFrom: 142 } },
    });
    expect(args[args.indexOf("-filter_complex") + 1]).toBe(
      "[0:V:0]fps=30/1,trim=start=5.000000:end=10.000000,scale=320:-2,split[enc][edge];[edge]select=lt(n\\,8)+gte(n\\,142),scale=w=min(1280\\,iw):h=min(720\\,ih):force_original_aspect_ratio=decrease:force_divisible_by=2,format=yuv420p[edges]",
    );
    expect(args.slice(args.indexOf("seg.ts") + 1)).toEqual([
      "-map",
      "[edges]",
      "-c:v",
      "rawvideo",
      "-fps_mode",
      "passthrough",
      "-f",
      "matroska",
      "edges.mkv",
    ]);
    // The comparison picks the encode's frames as the command picked them, and reads both as a job's files.
    const compare = seamComparisonArguments("seg.ts", "edges.mkv", { head: true, tailFrom: 142 }, (p) => ["-safe", p]);
    expect(compare.slice(compare.indexOf("-safe"), compare.indexOf("-filter_complex"))).toEqual([
      "-safe",
      "seg.ts",
      "-i",
      "seg.ts",
      "-safe",
      "edges.mkv",
      "-i",
      "edges.mkv",
    ]);
    const graph = compare[compare.indexOf("-filter_complex") + 1];
    expect(graph).toContain("[0:v:0]select=lt(n\\,8)+gte(n\\,142),");
    // The encode's frames at the edges' size, and no frame repeated to pair with the other side's.
    expect(graph).toContain("scale2ref");
    expect(graph).toContain("ssim=stats_file=-:eof_action=endall");
  });

  it("takes a comparison only when every edge frame was compared", () => {
    const both = { head: true, tailFrom: 142 };
    const values = Array.from({ length: 16 }, (_, i) => 0.9 + i / 1000);
    expect(segmentSeamsOf(values, both)).toEqual({ head: values.slice(0, 8), tail: values.slice(8) });
    expect(segmentSeamsOf(values.slice(1), both)).toBeNull();
    expect(segmentSeamsOf([...values, 0.9], both)).toBeNull();
    expect(segmentSeamsOf([...values.slice(1), Number.NaN], both)).toBeNull();
    expect(segmentSeamsOf(values.slice(0, 8), { head: false, tailFrom: 100 })).toEqual({
      head: null,
      tail: values.slice(0, 8),
    });
  });

  it("reports each join as its two frames a side against the six a side around them, and finds a worse join", () => {
    const even = Array(8).fill(0.98);
    const [good] = joinSeams([
      { startSeconds: 0, seams: { head: null, tail: even } },
      { startSeconds: 5, seams: { head: even, tail: null } },
    ]);
    expect(good).toEqual({ atSeconds: 5, ssim: 0.98, aroundSsim: 0.98 });
    // The frames nearest a join worse than those around it: the report shows the step.
    const [step] = joinSeams([
      { startSeconds: 0, seams: { head: null, tail: [...Array(6).fill(0.98), 0.9, 0.9] } },
      { startSeconds: 5, seams: { head: [0.9, 0.9, ...Array(6).fill(0.98)], tail: null } },
    ]);
    expect(step).toEqual({ atSeconds: 5, ssim: 0.9, aroundSsim: 0.98 });
    // A segment that could not compare its edge leaves its joins out.
    expect(
      joinSeams([
        { startSeconds: 0, seams: null },
        { startSeconds: 5, seams: { head: even, tail: even } },
        { startSeconds: 10, seams: { head: even, tail: null } },
      ]).map((j) => j.atSeconds),
    ).toEqual([10]);
  });
});
