import type { SplitFacts } from "./split-facts.ts";
import type { SplitSegment } from "./split-plan.ts";

/*
 * How many frames a split's segments write on a constant grid: the plan's count of each, which its
 * runner checks (split-tasks.ts), and the slot arithmetic both rest on.
 */

/**
 * The slot of the constant grid `num/den` that ffmpeg's `fps` and `trim` put a time in, given as the commands
 * give it (to the microsecond, split-plan.ts): microseconds rescaled to the grid, rounded half away from 0.
 */
export function slotOf(seconds: number, num: number, den: number): number {
  const us = BigInt(Math.round(seconds * 1e6));
  const scaled = us * BigInt(num);
  const unit = BigInt(den) * 1_000_000n;
  const half = unit / 2n;
  return Number(us >= 0n ? (scaled + half) / unit : -((-scaled + half) / unit));
}

/**
 * The frames a segment writes at the input's frame rate. On a constant grid (`fps` before `trim`, both
 * rounding a time to its nearest slot) exactly the slots from its start's to its end's; the last runs to
 * the video's end, which one run may round a frame either way.
 */
export function expectedFrames(
  segment: SplitSegment,
  video: NonNullable<SplitFacts["video"]>,
  lengthSeconds: number,
): number | null {
  const [num, den] = video.frameRate.split("/").map(Number);
  if (!num || !den) return null;
  const slot = (seconds: number) => slotOf(seconds, num, den);
  const end = segment.endSeconds ?? video.startSeconds + lengthSeconds;
  return Math.max(1, slot(end) - slot(segment.startSeconds));
}

/**
 * The frame count a segment's work file is checked for (its runner counts its packets), on a constant grid
 * where each writes exactly the slots of its span (the first fills the slots before its first decodable
 * frame, as one run does): all but the last exactly; the last within a frame of the video's end, or at
 * most that when the end was not measured (a header may claim more).
 */
export function frameCountOf(frames: number, last: boolean, facts: SplitFacts): { min?: number; max: number } {
  if (!last) return { min: frames, max: frames };
  return facts.videoEndSeconds != null ? { min: frames - 1, max: frames + 1 } : { max: frames + 1 };
}
