import { validScene, type CutScan } from "./scene-cuts.ts";
import { chosenKeyframe } from "./keyframe-scan.ts";
import type { SplitSegment } from "./split-plan.ts";

/*
 * Where a split's cuts go, from what the plan's runner found around each (scene-cuts.ts): a change of
 * scene first, else a keyframe, else where the even plan put it.
 */

/**
 * Where a cut goes from what its scan found (null: it stays), and the keyframe the segment after it can
 * seek straight to. A change of scene first: halfway between the frame before and the new scene's first,
 * or, where that frame is a keyframe (encoders put one there), just before the keyframe. Else just before
 * the keyframe nearest the planned cut. `constantRate`: the segments' frame grid (split-plan.ts,
 * constantRateOf), or null. On a grid, only a keyframe on it counts (within a quarter of a slot): one half a
 * slot off is rounded to a slot by ffmpeg from its exact time, which the plan only knows to a microsecond.
 */
export function cutFromScan(
  scan: CutScan | null,
  cutSeconds: number,
  windowSeconds: number,
  constantRate: string | null,
): { seconds: number; keyframeSeconds?: number } | null {
  if (!scan) return null;
  // Off a constant grid, the cut goes halfway to the frame before the keyframe: one the scan saw.
  const usable = scan.keyframes.filter((k) =>
    constantRate ? onGrid(k.atSeconds, constantRate) : k.beforeSeconds !== null && k.beforeSeconds < k.atSeconds,
  );
  const at = chosenKeyframe(
    scan.scene,
    usable.map((k) => k.atSeconds),
    cutSeconds,
    windowSeconds,
  );
  const keyframe = usable.find((k) => k.atSeconds === at);
  if (keyframe) return { seconds: cutBefore(keyframe, constantRate), keyframeSeconds: keyframe.atSeconds };
  const scene = scan.scene;
  if (scene && validScene(scene, cutSeconds, windowSeconds))
    return { seconds: (scene.beforeSeconds + scene.atSeconds) / 2 };
  return null;
}

const slots = (seconds: number, constantRate: string) => {
  const [num, den] = constantRate.split("/").map(Number);
  return (seconds * num) / den;
};

function onGrid(keyframeSeconds: number, constantRate: string): boolean {
  const slot = slots(keyframeSeconds, constantRate);
  return Math.abs(slot - Math.round(slot)) <= 0.25;
}

/**
 * A cut just before a keyframe, so the keyframe is the first frame of the segment after: on a constant
 * grid, 0.4 of a slot before the keyframe's slot (the `fps` and `trim` filters both round a time to the
 * nearest slot, so both put the keyframe after the cut); else halfway to the frame before it.
 */
function cutBefore(keyframe: CutScan["keyframes"][number], constantRate: string | null): number {
  if (!constantRate) return (keyframe.beforeSeconds! + keyframe.atSeconds) / 2;
  const [num, den] = constantRate.split("/").map(Number);
  return ((Math.round(slots(keyframe.atSeconds, constantRate)) - 0.4) * den) / num;
}

/**
 * The segments with their cuts placed: `placed[k]` is where the cut before segment k + 1 goes
 * (cutFromScan), or null (it stays). A placed cut outside its window is not taken: with windows of at
 * most a quarter of a segment (sceneWindowSeconds), no scan can make a segment shorter than half of one, or empty.
 */
export function placeCuts(
  segments: SplitSegment[],
  placed: ({ seconds: number; keyframeSeconds?: number } | null)[],
  windowSeconds: number,
): SplitSegment[] {
  const starts = segments.map((s, i) => {
    const cut = i === 0 ? null : placed[i - 1];
    const ok = cut != null && Number.isFinite(cut.seconds) && Math.abs(cut.seconds - s.startSeconds) <= windowSeconds;
    return ok
      ? { seconds: cut.seconds, from: s.startSeconds, keyframe: cut.keyframeSeconds }
      : { seconds: s.startSeconds };
  });
  return segments.map((s, i) => {
    const start = starts[i];
    const next = starts[i + 1];
    return {
      index: s.index,
      startSeconds: start.seconds,
      endSeconds: next ? next.seconds : s.endSeconds,
      ...("from" in start ? { cutFromSeconds: start.from } : {}),
      ...("keyframe" in start && start.keyframe !== undefined ? { keyframeSeconds: start.keyframe } : {}),
    };
  });
}
