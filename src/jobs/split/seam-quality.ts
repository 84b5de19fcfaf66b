import { MEASURING_LOG_OPTIONS } from "../checks/check-analysis.ts";

/*
 * How a split's joins look: each join's SSIM against the frames around it. A segment's command also
 * writes, beside its encode, the frames it fed the encoder at its edges (SEAM_FRAMES at its start where a
 * join is before it, at its end where one is after it), unencoded; the runner then compares the encode's
 * frames there with them (container/src/measure-seams.ts). A join's figure is its two segments' frames
 * nearest it (SEAM_JOIN_FRAMES a side) against the rest of both windows: a join that looks like the
 * frames around it scores as they do. Planned for constant-rate outputs, where a segment's frame count is
 * exact (split-tasks.ts, expectedFrames), so an edge is picked by frame number on both sides alike.
 */

/** Frames a side of a join that the segments keep for its report. */
export const SEAM_FRAMES = 8;
/** Of those, the frames a side that are the join itself. */
export const SEAM_JOIN_FRAMES = 2;

/** A segment's edges by frame number: its first SEAM_FRAMES (`head`), its frames from `tailFrom` on. */
export type SeamWindows = { head: boolean; tailFrom: number | null };
/** What the runner is asked to measure: the segment's encode (`output`), the edge frames (`scratch`), which. */
export type SeamRequest = { output: string; scratch: string; windows: SeamWindows };
/** Per-frame SSIM of a segment's encode against what it was fed, at each edge (null: no join there). */
export type SegmentSeams = { head: number[] | null; tail: number[] | null };
/** A join as the tasks list shows it. */
export type JoinSeam = { atSeconds: number; ssim: number; aroundSsim: number };

/**
 * The edges of a segment that writes `frames` frames (the first has no join before it, the last none
 * after it); null when it has no join or too few frames to tell its edges apart.
 */
export function seamWindowsOf(
  segment: { index: number; endSeconds: number | null },
  frames: number | null | undefined,
): SeamWindows | null {
  const head = segment.index > 0;
  const tail = segment.endSeconds !== null;
  if ((!head && !tail) || !frames || frames < 2 * SEAM_FRAMES) return null;
  return { head, tailFrom: tail ? frames - SEAM_FRAMES : null };
}

/** The `select` expression that keeps a segment's edge frames (commas escaped for a filter graph). */
export function seamSelect(windows: SeamWindows): string {
  const parts = [
    ...(windows.head ? [`lt(n\\,${SEAM_FRAMES})`] : []),
    ...(windows.tailFrom !== null ? [`gte(n\\,${windows.tailFrom})`] : []),
  ];
  return `select=${parts.join("+")}`;
}

/**
 * The edge frames as the segment's command writes them: picked, then no larger than 1280x720 (16 raw
 * frames of an 8K picture would take 800 MB of the job's disk; the comparison scales the encode's frames
 * to the same size), in 4:2:0, the format Matroska takes raw.
 */
export function seamEdgeFilters(windows: SeamWindows): string {
  return `${seamSelect(windows)},scale=w=min(1280\\,iw):h=min(720\\,ih):force_original_aspect_ratio=decrease:force_divisible_by=2,format=yuv420p`;
}

/**
 * ffmpeg's arguments for the comparison: the encode's edge frames (picked as the command picked them)
 * against the frames written beside it, paired in order (both renumbered on one clock), in 4:2:0, one
 * SSIM line per frame on stdout. `safety`: the input options every runner read of a job's file gets.
 */
export function seamComparisonArguments(
  encodedPath: string,
  edgesPath: string,
  windows: SeamWindows,
  safety: (path: string) => string[],
): string[] {
  const renumber = "settb=1/25,setpts=N,format=yuv420p";
  // The encode's frames at the edges' size; the comparison ends with the shorter side (no frame repeated to
  // pair with the other's: a count short of the edges' is no report).
  return [
    ...MEASURING_LOG_OPTIONS,
    ...safety(encodedPath),
    "-i",
    encodedPath,
    ...safety(edgesPath),
    "-i",
    edgesPath,
    "-filter_complex",
    `[0:v:0]${seamSelect(windows)},${renumber}[e0];[1:v:0]${renumber}[r0];[e0][r0]scale2ref=flags=bicubic[e][r];[e][r]ssim=stats_file=-:eof_action=endall[o]`,
    "-map",
    "[o]",
    "-f",
    "null",
    "-",
  ];
}

/** The comparison's per-frame SSIM split into the segment's edges; null when it did not compare every edge frame. */
export function segmentSeamsOf(ssim: number[], windows: SeamWindows): SegmentSeams | null {
  const wanted = (windows.head ? SEAM_FRAMES : 0) + (windows.tailFrom !== null ? SEAM_FRAMES : 0);
  if (ssim.length !== wanted || ssim.some((v) => !Number.isFinite(v))) return null;
  return {
    head: windows.head ? ssim.slice(0, SEAM_FRAMES) : null,
    tail: windows.tailFrom !== null ? ssim.slice(-SEAM_FRAMES) : null,
  };
}

/** Each join between segments that both measured their edge: where it is, its frames' SSIM, the frames' around it. */
export function joinSeams(segments: { startSeconds: number; seams: SegmentSeams | null }[]): JoinSeam[] {
  return segments.slice(1).flatMap((after, k) => {
    const tail = segments[k].seams?.tail;
    const head = after.seams?.head;
    if (!tail || !head) return [];
    const at = [...tail.slice(-SEAM_JOIN_FRAMES), ...head.slice(0, SEAM_JOIN_FRAMES)];
    const around = [...tail.slice(0, -SEAM_JOIN_FRAMES), ...head.slice(SEAM_JOIN_FRAMES)];
    return [{ atSeconds: after.startSeconds, ssim: round5(mean(at)), aroundSsim: round5(mean(around)) }];
  });
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const round5 = (v: number) => Math.round(v * 1e5) / 1e5;
