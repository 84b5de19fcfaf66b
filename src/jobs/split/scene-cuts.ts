import type { SplitSegment } from "./split-plan.ts";

/*
 * A split's cuts moved to where the picture changes anyway, or where a segment can start without decoding
 * what comes before it. Before the tasks are written, the plan's runner reads the keyframes in a window
 * around each planned cut (a demux, no decode) and decodes the window, scoring every frame against the one
 * before (ffmpeg's `scdet`). A cut with a change of scene in its window moves to it, so the segment after
 * starts on that scene's first frame and whatever differs between two encodes at a join falls where nobody
 * can see it; else a cut with a keyframe in its window moves to the keyframe, so the segment after seeks
 * straight to it and decodes nothing it does not encode (a segment cut elsewhere decodes from the keyframe
 * before its start: up to a GOP of frames it pays for and throws away).
 */

/** The window either side of a planned cut: a quarter of a segment (segments keep at least half their length), at most this. */
export const SCENE_WINDOW_MAX_SECONDS = 2;
/** scdet's own default threshold: a frame scoring this (0–100, its difference from the frame before) starts a new scene. */
export const SCENE_CHANGE_MIN_SCORE = 10;
/** Cuts scanned in one plan: each is a decode of its window on the plan's runner (unbilled), within the probe's deadline. */
export const MAX_SCENE_SCAN_CUTS = 32;

export type SceneScan = {
  /** The planned cuts, in the input's own timestamps. */
  cutsSeconds: number[];
  windowSeconds: number;
  /** The input's start: ffmpeg's -ss before -i counts from here. */
  formatStartSeconds: number;
};

export const sceneWindowSeconds = (segmentSeconds: number) => Math.min(SCENE_WINDOW_MAX_SECONDS, segmentSeconds / 4);

/** What the scan found around one cut: the change of scene (the frame before it and its first), and the keyframes. */
export type CutScan = { scene: { beforeSeconds: number; atSeconds: number } | null; keyframesSeconds: number[] };
/** Keyframes reported per cut: a window holds a few. */
export const MAX_KEYFRAMES_PER_CUT = 64;

/** What to scan: the segments' inner cuts, the first MAX_SCENE_SCAN_CUTS of them (the rest stay where planned). */
export function sceneScanOf(segments: SplitSegment[], segmentSeconds: number, formatStartSeconds: number): SceneScan {
  return {
    cutsSeconds: segments.slice(1, MAX_SCENE_SCAN_CUTS + 1).map((s) => s.startSeconds),
    windowSeconds: sceneWindowSeconds(segmentSeconds),
    formatStartSeconds,
  };
}

/**
 * The scan of one cut's window: the video only, every frame's timestamp in microseconds (`settb`, so
 * a time an hour in keeps its precision) and its scdet score, printed to stdout. `path` as the sandbox
 * sees it, after the command's own input options (`safety`).
 */
export function sceneScanArguments(
  cutSeconds: number,
  scan: Pick<SceneScan, "windowSeconds" | "formatStartSeconds">,
  path: string,
  safety: (path: string) => string[],
): string[] {
  const from = cutSeconds - scan.windowSeconds;
  return [
    "-v",
    "error",
    "-copyts",
    "-noaccurate_seek",
    "-ss",
    Math.max(0, from - scan.formatStartSeconds - 0.5).toFixed(6),
    ...safety(path),
    "-i",
    path,
    "-map",
    "0:V:0",
    "-an",
    "-sn",
    "-dn",
    "-vf",
    `trim=start=${from.toFixed(6)}:end=${(cutSeconds + scan.windowSeconds).toFixed(6)},settb=AVTB,scdet=threshold=${SCENE_CHANGE_MIN_SCORE},metadata=mode=print:key=lavfi.scd.score:file=-`,
    "-f",
    "null",
    "-",
  ];
}

/**
 * The change of scene in a cut's window, from the scan's stdout: the frame that scored highest (at least
 * SCENE_CHANGE_MIN_SCORE) and the one before it; null when the window has none. Read as untrusted (the
 * scan decodes a client's file): only frames inside the window count.
 */
export function sceneFromScan(stdout: string, cutSeconds: number, windowSeconds: number): CutScan["scene"] {
  const frames: { seconds: number; score: number }[] = [];
  let pts: number | null = null;
  for (const line of stdout.split("\n")) {
    const frame = /^frame:\d+\s+pts:(-?\d+)\s/.exec(line);
    if (frame) pts = Number(frame[1]) / 1e6;
    const score = /^lavfi\.scd\.score=([0-9.]+)$/.exec(line.trim());
    if (!score) continue;
    // A score belongs to the frame line just before it, once.
    if (pts !== null && Math.abs(pts - cutSeconds) <= windowSeconds)
      frames.push({ seconds: pts, score: Number(score[1]) });
    pts = null;
  }
  let best: number | null = null;
  for (let i = 1; i < frames.length; i++) {
    const { seconds, score } = frames[i];
    if (score < SCENE_CHANGE_MIN_SCORE || !(seconds > frames[i - 1].seconds)) continue;
    if (best === null || score > frames[best].score) best = i;
  }
  return best === null ? null : { beforeSeconds: frames[best - 1].seconds, atSeconds: frames[best].seconds };
}

/**
 * ffprobe's arguments (before the path) for the keyframes around every cut at once: the video's packets
 * in each window (`-read_intervals`, a seek and a demux, nothing decoded), their times and flags.
 */
export function keyframeScanOptions(scan: Pick<SceneScan, "cutsSeconds" | "windowSeconds">): string[] {
  const intervals = scan.cutsSeconds.map(
    (cut) => `${(cut - scan.windowSeconds).toFixed(6)}%${(cut + scan.windowSeconds).toFixed(6)}`,
  );
  return [
    "-select_streams",
    "V:0",
    "-read_intervals",
    intervals.join(","),
    "-show_entries",
    "packet=pts_time,flags",
    "-of",
    "csv=p=0",
  ];
}

/** The keyframes in a cut's window, from keyframeScanOptions' stdout (untrusted: only well-formed lines inside the window). */
export function keyframesFromPackets(stdout: string, cutSeconds: number, windowSeconds: number): number[] {
  const found = new Set<number>();
  for (const line of stdout.split("\n")) {
    const packet = /^(-?\d+(?:\.\d+)?),(K)/.exec(line);
    if (!packet) continue;
    const seconds = Number(packet[1]);
    if (Math.abs(seconds - cutSeconds) <= windowSeconds && found.size < MAX_KEYFRAMES_PER_CUT) found.add(seconds);
  }
  return [...found].sort((a, b) => a - b);
}

/**
 * Where a cut goes from what its scan found (null: it stays), and the keyframe the segment after it can
 * seek straight to. A change of scene first: halfway between the frame before and the new scene's first,
 * or, where that frame is a keyframe (encoders put one there), at the keyframe. Else the keyframe nearest
 * the planned cut. `constantRate`: the segments' frame grid (split-plan.ts, constantRateOf), or null.
 */
export function cutFromScan(
  scan: CutScan | null,
  cutSeconds: number,
  windowSeconds: number,
  constantRate: string | null,
): { seconds: number; keyframeSeconds?: number } | null {
  const inWindow = (t: unknown): t is number =>
    typeof t === "number" && Number.isFinite(t) && Math.abs(t - cutSeconds) <= windowSeconds;
  const keyframes = (scan?.keyframesSeconds ?? []).filter(inWindow);
  const scene = scan?.scene;
  if (scene && inWindow(scene.beforeSeconds) && inWindow(scene.atSeconds) && scene.beforeSeconds < scene.atSeconds) {
    const keyframe = keyframes.find((k) => Math.abs(k - scene.atSeconds) <= 2e-6);
    if (keyframe === undefined) return { seconds: (scene.beforeSeconds + scene.atSeconds) / 2 };
    return { seconds: cutBefore(keyframe, constantRate), keyframeSeconds: keyframe };
  }
  if (!keyframes.length) return null;
  const nearest = keyframes.reduce((a, b) => (Math.abs(b - cutSeconds) < Math.abs(a - cutSeconds) ? b : a));
  return { seconds: cutBefore(nearest, constantRate), keyframeSeconds: nearest };
}

/**
 * A cut just before a keyframe, so the keyframe is the first frame of the segment after: on a constant
 * grid, 0.4 of a slot before the keyframe's slot (the `fps` and `trim` filters both round a time to the
 * nearest slot, so both put the keyframe after the cut, whatever the float); else 0.4 ms before it (no
 * frame lies closer: Matroska counts in milliseconds).
 */
function cutBefore(keyframeSeconds: number, constantRate: string | null): number {
  if (!constantRate) return keyframeSeconds - 0.0004;
  const [num, den] = constantRate.split("/").map(Number);
  return ((Math.round((keyframeSeconds * num) / den) - 0.4) * den) / num;
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
