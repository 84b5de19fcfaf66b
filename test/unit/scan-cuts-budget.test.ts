import { describe, expect, it } from "vitest";
import { scanCutsWith } from "../../container/src/scan-cuts.ts";

/**
 * The plan's scan of its cuts (container/src/scan-cuts.ts) with its processes stood in for by canned
 * outputs: which windows it decodes for a change of scene, within its time and its bound on decoding.
 */
const listing = (keyframes: number[]) => keyframes.map((k) => `${k.toFixed(6)},K_`).join("\n");

describe("the plan's scan of its cuts", () => {
  it("decodes windows for changes of scene only within its time: the rest keep their keyframes", async () => {
    const scenesScanned: string[] = [];
    const run = async (binary: "ffmpeg" | "ffprobe", argv: string[]) => {
      if (binary === "ffprobe") return listing([0, 3, 8, 13, 18]);
      if (argv.includes("framecrc")) return null;
      scenesScanned.push(argv[argv.indexOf("-ss") + 1]);
      await new Promise((r) => setTimeout(r, 40));
      return "";
    };
    const scans = await scanCutsWith(run, "/in.mp4", {
      cutsSeconds: [5, 10, 15, 20],
      windowSeconds: 1.25,
      formatStartSeconds: 0,
      budgetMs: 60,
    });
    // 40 ms each against 60 ms: the first two windows (one, on a machine slow enough), then no more.
    expect(scenesScanned.length).toBeGreaterThanOrEqual(1);
    expect(scenesScanned.length).toBeLessThanOrEqual(2);
    expect(scans.map((s) => s?.scene ?? null)).toEqual([null, null, null, null]);
    expect(scans.every((s) => s !== null)).toBe(true);
  });

  it("does not decode a window whose decode would start more than 2 s before it", async () => {
    const scenesScanned: string[] = [];
    const run = async (binary: "ffmpeg" | "ffprobe", argv: string[]) => {
      if (binary === "ffprobe") return listing([0, 8.333333]);
      if (!argv.includes("framecrc")) scenesScanned.push(argv[argv.indexOf("-ss") + 1]);
      return "";
    };
    await scanCutsWith(run, "/in.mp4", { cutsSeconds: [5, 10], windowSeconds: 1.25, formatStartSeconds: 0 });
    // The window at 5 s (from 3.75 s) would decode from 0: not scanned; the one at 10 s from 8.33 s: scanned.
    expect(scenesScanned).toEqual(["8.250000"]);
  });
});
