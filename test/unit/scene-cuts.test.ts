import { describe, expect, it } from "vitest";
import {
  cutFromScan,
  keyframesFromPackets,
  keyframeScanOptions,
  MAX_SCENE_SCAN_CUTS,
  placeCuts,
  sceneFromScan,
  sceneScanOf,
  sceneWindowSeconds,
} from "../../src/jobs/split/scene-cuts.ts";
import { planSegments, seekSeconds, SEGMENT_SEEK_MARGIN_SECONDS } from "../../src/jobs/split/split-plan.ts";

/** A scan's stdout as ffmpeg's metadata filter prints it: timestamps in microseconds (settb=AVTB). */
const scanOf = (frames: [seconds: number, score: number][]) =>
  frames
    .map(
      ([t, score], i) => `frame:${i}    pts:${Math.round(t * 1e6)}  pts_time:${t}\nlavfi.scd.score=${score.toFixed(3)}`,
    )
    .join("\n");

describe("a split's cuts at changes of scene and keyframes", () => {
  it("find the frame that scores highest in a window, and the frame before it", () => {
    const stdout = scanOf([
      [9, 0],
      [9.5, 0.4],
      [9.533333, 31.2],
      [9.566667, 0.2],
      [10.4, 12.5],
    ]);
    expect(sceneFromScan(stdout, 10, 1.25)).toEqual({ beforeSeconds: 9.5, atSeconds: 9.533333 });
  });

  it("find no change of scene where no frame scores the threshold, or there is no frame", () => {
    expect(
      sceneFromScan(
        scanOf([
          [9, 0],
          [9.5, 9.9],
          [10, 3],
        ]),
        10,
        1.25,
      ),
    ).toBeNull();
    expect(sceneFromScan("", 10, 1.25)).toBeNull();
    // The first frame of a window has no frame before it to be a change from.
    expect(sceneFromScan(scanOf([[9.5, 80]]), 10, 1.25)).toBeNull();
  });

  it("read a scan as untrusted: frames outside the window, timestamps going back and stray lines count for nothing", () => {
    const stdout = [
      scanOf([
        [3, 0],
        [3.04, 99],
      ]),
      "lavfi.scd.score=55",
      "frame:9 pts:nonsense pts_time:1",
      "lavfi.scd.score=70",
      scanOf([
        [10.2, 0],
        [10.1, 90],
      ]),
      "__proto__=1",
    ].join("\n");
    expect(sceneFromScan(stdout, 10, 1.25)).toBeNull();
  });

  it("read the keyframes of a window from ffprobe's packets, and nothing else", () => {
    expect(keyframeScanOptions({ cutsSeconds: [5, 10], windowSeconds: 1.25 })).toContain(
      "3.750000%6.250000,8.750000%11.250000",
    );
    const packets = ["0.000000,K_", "8.333333,K_", "9.100000,__", "9.400000,K_", "9.4,K_", "x,K_", "11.300000,K_"];
    expect(keyframesFromPackets(packets.join("\n"), 10, 1.25)).toEqual([9.4]);
  });

  it("put a cut at a change of scene: halfway to its first frame, or just before it where it is a keyframe", () => {
    const scene = { beforeSeconds: 9.5, atSeconds: 9.533333 };
    expect(cutFromScan({ scene, keyframesSeconds: [] }, 10, 1.25, null)).toEqual({ seconds: 9.5166665 });
    // On a 30 fps grid: 0.4 of a slot before the keyframe's slot (286), so fps and trim both round it after the cut.
    const atKey = cutFromScan({ scene, keyframesSeconds: [8.8, 9.533333] }, 10, 1.25, "30/1");
    expect(atKey).toEqual({ seconds: 285.6 / 30, keyframeSeconds: 9.533333 });
    // Without a grid (Matroska keeps the frames' own times): 0.4 ms before it.
    expect(cutFromScan({ scene, keyframesSeconds: [9.533333] }, 10, 1.25, null)!.seconds).toBeCloseTo(9.532933, 6);
  });

  it("else put a cut before the keyframe nearest the planned one, else leave it", () => {
    expect(cutFromScan({ scene: null, keyframesSeconds: [8.9, 10.6, 11.2] }, 10, 1.25, "30/1")).toEqual({
      seconds: 317.6 / 30,
      keyframeSeconds: 10.6,
    });
    expect(cutFromScan({ scene: null, keyframesSeconds: [] }, 10, 1.25, "30/1")).toBeNull();
    expect(cutFromScan(null, 10, 1.25, "30/1")).toBeNull();
    // What a scan says outside the window, or backwards, is not taken.
    expect(
      cutFromScan({ scene: { beforeSeconds: 12, atSeconds: 11 }, keyframesSeconds: [3, 1e300] }, 10, 1.25, null),
    ).toBeNull();
  });

  it("seek a segment straight to its keyframe, else the margin before its start", () => {
    expect(seekSeconds({ index: 1, startSeconds: 9.52, endSeconds: 15, keyframeSeconds: 9.533333 })).toBeCloseTo(
      9.534333,
      6,
    );
    expect(seekSeconds({ index: 1, startSeconds: 10, endSeconds: 15 })).toBe(10 - SEGMENT_SEEK_MARGIN_SECONDS);
  });

  it("keep every segment at least half a segment long: a placed cut outside its window is not taken", () => {
    const segments = planSegments({ startSeconds: 0, lengthSeconds: 20 }, 5);
    const window = sceneWindowSeconds(5);
    expect(window).toBe(1.25);
    const placed = placeCuts(
      segments,
      [{ seconds: 5.6 }, { seconds: 7 }, { seconds: 14.2, keyframeSeconds: 14.25 }],
      window,
    );
    expect(placed.map((s) => [s.startSeconds, s.endSeconds, s.cutFromSeconds, s.keyframeSeconds])).toEqual([
      [0, 5.6, undefined, undefined],
      [5.6, 10, 5, undefined],
      [10, 14.2, undefined, undefined],
      [14.2, null, 15, 14.25],
    ]);
    expect(placeCuts(segments, [{ seconds: Number.NaN }, { seconds: -1e9 }, { seconds: 1e300 }], window)).toEqual(
      segments,
    );
  });

  it("scan at most MAX_SCENE_SCAN_CUTS cuts, in a window of a quarter segment up to 2 s", () => {
    const segments = planSegments({ startSeconds: 2, lengthSeconds: 400 }, 4);
    const scan = sceneScanOf(segments, 4, 0.5);
    expect(scan.cutsSeconds).toHaveLength(MAX_SCENE_SCAN_CUTS);
    expect(scan.cutsSeconds[0]).toBe(6);
    expect(scan).toMatchObject({ windowSeconds: 1, formatStartSeconds: 0.5 });
    expect(sceneWindowSeconds(60)).toBe(2);
  });
});
