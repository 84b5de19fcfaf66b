import { describe, expect, it } from "vitest";
import {
  framesFromScan,
  MAX_SCENE_SCAN_CUTS,
  sceneOf,
  sceneScanBudgetMs,
  sceneScanOf,
  sceneWindowSeconds,
} from "../../src/jobs/split/scene-cuts.ts";
import {
  chosenKeyframe,
  decodesFrom,
  keyframesIn,
  keyframeAtOrBefore,
  packetBefore,
  packetsFromListing,
  keyframeScanOptions,
  MAX_KEYFRAMES_PER_CUT,
} from "../../src/jobs/split/keyframe-scan.ts";
import { cutFromScan, placeCuts } from "../../src/jobs/split/place-cuts.ts";
import { planSegments, seekSeconds, SEGMENT_SEEK_MARGIN_SECONDS } from "../../src/jobs/split/split-plan.ts";

/** A scan's stdout as ffmpeg's metadata filter prints it: timestamps in microseconds (settb=AVTB). */
const sceneFromScan = (stdout: string) => sceneOf(framesFromScan(stdout, 10, 1.25));
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
    expect(sceneFromScan(stdout)).toEqual({ beforeSeconds: 9.5, atSeconds: 9.533333 });
  });

  it("find no change of scene where no frame scores the threshold, or there is no frame", () => {
    expect(
      sceneFromScan(
        scanOf([
          [9, 0],
          [9.5, 9.9],
          [10, 3],
        ]),
      ),
    ).toBeNull();
    expect(sceneFromScan("")).toBeNull();
    // The first frame of a window has no frame before it to be a change from.
    expect(sceneFromScan(scanOf([[9.5, 80]]))).toBeNull();
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
    expect(sceneFromScan(stdout)).toBeNull();
  });

  it("read the keyframes of a window from ffprobe's packets, and nothing else", () => {
    expect(keyframeScanOptions({ cutsSeconds: [5, 10], windowSeconds: 1.25 })).toContain(
      "3.750000%6.250000,8.750000%11.250000",
    );
    const packets = ["0.000000,K_", "8.333333,K_", "9.100000,__", "9.400000,K_", "9.4,K_", "x,K_", "11.300000,K_"];
    expect(keyframesIn(packetsFromListing(packets.join("\n")), 10, 1.25)).toEqual([9.4]);
    // Every frame a keyframe (all-intra at 60 fps): the nearest ones to the cut, not the window's first.
    const intra = Array.from({ length: 150 }, (_, i) => `${(8.75 + i / 60).toFixed(6)},K_`).join("\n");
    const nearest = keyframesIn(packetsFromListing(intra), 10, 1.25);
    expect(nearest).toHaveLength(MAX_KEYFRAMES_PER_CUT);
    expect(nearest[0]).toBe(10);
    expect(chosenKeyframe(null, nearest, 10, 1.25)).toBe(10);
  });

  it("check a keyframe decodes by itself: its seek's first frame is the keyframe", () => {
    // framecrc at microseconds: an intra-refresh recovery point at 4 s decodes first at 4.72 s.
    expect(decodesFrom("#tb 0: 1/1000000\n0,    4000000,    4000000,    40000,   115200, 0xe4ba6b8a\n", 4)).toBe(true);
    expect(decodesFrom("0,    4720000,    4720000,    40000,   115200, 0x1d1eb01b\n", 4)).toBe(false);
    expect(decodesFrom("", 4)).toBe(false);
    // The frame before a keyframe, and the keyframe a seek lands on, from the packets' listing.
    const listing = packetsFromListing(
      ["8.000000,K_", "9.900000,__", "9.960000,__,", "10.000000,K_", "10.04,__", "x,K_"].join("\n"),
    );
    expect(packetBefore(listing, 10, 8.75)).toBe(9.96);
    expect(packetBefore(listing, 8, 8.75)).toBeNull();
    expect(keyframeAtOrBefore(listing, 8.75)).toBe(8);
    expect(keyframeAtOrBefore(listing, 7.9)).toBeNull();
  });

  it("put a cut at a change of scene: halfway to its first frame, or just before it where it is a keyframe", () => {
    const scene = { beforeSeconds: 9.5, atSeconds: 9.533333 };
    expect(cutFromScan({ scene, keyframes: [] }, 10, 1.25, null)).toEqual({ seconds: 9.5166665 });
    // On a 30 fps grid (9.533333 is slot 286): 0.4 of a slot before the keyframe's slot, so fps and trim both
    // round it after the cut.
    const key = { atSeconds: 9.533333, beforeSeconds: 9.5 };
    const atKey = cutFromScan(
      { scene, keyframes: [{ atSeconds: 8.8, beforeSeconds: 8.766667 }, key] },
      10,
      1.25,
      "30/1",
    );
    expect(atKey).toEqual({ seconds: 285.6 / 30, keyframeSeconds: 9.533333 });
    // Without a grid (Matroska keeps the frames' own times): halfway to the frame before it, which the scan saw.
    expect(cutFromScan({ scene, keyframes: [key] }, 10, 1.25, null)).toEqual({
      seconds: 9.5166665,
      keyframeSeconds: 9.533333,
    });
    // A frame 0.2 ms before the keyframe (a 90 kHz MP4 into Matroska) stays in the segment before.
    expect(cutFromScan({ scene: null, keyframes: [{ atSeconds: 4, beforeSeconds: 3.9998 }] }, 4, 1, null)).toEqual({
      seconds: expect.closeTo(3.9999, 9),
      keyframeSeconds: 4,
    });
    // Without the frame before it, a keyframe off a grid is not cut at.
    expect(cutFromScan({ scene: null, keyframes: [{ atSeconds: 4, beforeSeconds: null }] }, 4, 1, null)).toBeNull();
  });

  it("else put a cut before the keyframe nearest the planned one, else leave it", () => {
    const keyframes = [8.9, 10.6, 11.2].map((atSeconds) => ({ atSeconds, beforeSeconds: atSeconds - 1 / 30 }));
    expect(cutFromScan({ scene: null, keyframes }, 10, 1.25, "30/1")).toEqual({
      seconds: 317.6 / 30,
      keyframeSeconds: 10.6,
    });
    expect(cutFromScan({ scene: null, keyframes: [] }, 10, 1.25, "30/1")).toBeNull();
    expect(cutFromScan(null, 10, 1.25, "30/1")).toBeNull();
    // What a scan says outside the window, or backwards, is not taken.
    expect(
      cutFromScan(
        { scene: { beforeSeconds: 12, atSeconds: 11 }, keyframes: [{ atSeconds: 1e300, beforeSeconds: 3 }] },
        10,
        1.25,
        null,
      ),
    ).toBeNull();
  });

  it("cut before a keyframe only on the grid: one half a slot off is rounded by ffmpeg from a time the plan has to a microsecond", () => {
    // 10.026683 s at 30000/1001 is slot 300.5 (a keyframe half a slot off): not a keyframe cut.
    const half = { atSeconds: 10.026683, beforeSeconds: 9.993317 };
    expect(cutFromScan({ scene: null, keyframes: [half] }, 10, 1.25, "30000/1001")).toBeNull();
    // A quarter of a slot off still counts: its slot is plain.
    const near = { atSeconds: 10.0183, beforeSeconds: 9.98 };
    expect(cutFromScan({ scene: null, keyframes: [near] }, 10, 1.25, "30000/1001")?.keyframeSeconds).toBe(10.0183);
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
    expect(scan).toMatchObject({ windowSeconds: 1, formatStartSeconds: 0.5, budgetMs: sceneScanBudgetMs(400) });
    // 2 % of the video's length, within 1 s and 20 s.
    expect([sceneScanBudgetMs(10), sceneScanBudgetMs(400), sceneScanBudgetMs(7200)]).toEqual([1000, 8000, 20000]);
    expect(sceneWindowSeconds(60)).toBe(2);
  });
});
