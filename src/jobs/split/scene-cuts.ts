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
/**
 * A window is scanned for a change of scene only when its decode starts at most this long before it (the
 * keyframe a seek there lands on): with keyframes far apart, scanning 32 windows decoded most of the video
 * on one core before any segment ran (13 s of a 60 s 1080p clip with a keyframe every 8.3 s). Such a cut
 * still moves to a keyframe in its window; encoders put keyframes at changes of scene anyway.
 */
export const MAX_SCENE_SCAN_PREROLL_SECONDS = 2;
/** Cuts scanned in one plan: each is a decode of its window on the plan's runner (unbilled), within the probe's deadline. */
export const MAX_SCENE_SCAN_CUTS = 32;

export type SceneScan = {
  /** The planned cuts, in the input's own timestamps. */
  cutsSeconds: number[];
  windowSeconds: number;
  /** The input's start: ffmpeg's -ss before -i counts from here. */
  formatStartSeconds: number;
  /** How long the windows' decodes for changes of scene may take in all (sceneScanBudgetMs); the rest are not scanned. */
  budgetMs?: number;
};

/**
 * The plan's time for changes of scene: 2 % of the video's length (at least 1 s, at most 20 s). The scan
 * runs before any segment, on one core, so it delays the whole job: at 5 s segments of a 60 s 1080p clip,
 * unbounded, it took 3.4 s of a 24 s split.
 */
export const sceneScanBudgetMs = (videoSeconds: number) =>
  Math.round(Math.min(20_000, Math.max(1_000, videoSeconds * 20)));

export const sceneWindowSeconds = (segmentSeconds: number) => Math.min(SCENE_WINDOW_MAX_SECONDS, segmentSeconds / 4);

/**
 * What the scan found around one cut: the change of scene (the frame before it and its first), and the
 * keyframe a segment can start on there, checked to decode by itself, with the frame before it (null
 * when the scan did not see one).
 */
export type CutScan = {
  scene: { beforeSeconds: number; atSeconds: number } | null;
  keyframes: { atSeconds: number; beforeSeconds: number | null }[];
};
/** A frame of a scan's window: its time and its scdet score. */
export type ScannedFrame = { seconds: number; score: number };

/** What to scan: the segments' inner cuts, the first MAX_SCENE_SCAN_CUTS of them (the rest stay where planned). */
export function sceneScanOf(segments: SplitSegment[], segmentSeconds: number, formatStartSeconds: number): SceneScan {
  return {
    cutsSeconds: segments.slice(1, MAX_SCENE_SCAN_CUTS + 1).map((s) => s.startSeconds),
    windowSeconds: sceneWindowSeconds(segmentSeconds),
    formatStartSeconds,
    budgetMs: sceneScanBudgetMs(segments.length * segmentSeconds),
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
    ...seekedVideo(from - scan.formatStartSeconds - 0.5, path, safety),
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
 * The start of a scan's ffmpeg: its first video stream (never cover art) from a seek to `seekSeconds`
 * (from the input's start) on, timestamps kept, decoded on one thread: the scan is the plan's, not billed,
 * so it takes no more of the runner than one core.
 */
export function seekedVideo(seekSeconds: number, path: string, safety: (path: string) => string[]): string[] {
  return [
    "-v",
    "error",
    "-nostdin",
    "-threads",
    "1",
    "-copyts",
    "-noaccurate_seek",
    "-ss",
    Math.max(0, seekSeconds).toFixed(6),
    ...safety(path),
    "-i",
    path,
    "-map",
    "0:V:0",
  ];
}

/**
 * The frames of a cut's window from the scan's stdout, in the order decoded. Read as untrusted (the
 * scan decodes a client's file): only frames inside the window count, each score once, after its frame.
 */
export function framesFromScan(stdout: string, cutSeconds: number, windowSeconds: number): ScannedFrame[] {
  const frames: ScannedFrame[] = [];
  let pts: number | null = null;
  for (const line of stdout.split("\n")) {
    const frame = /^frame:\d+\s+pts:(-?\d+)\s/.exec(line);
    if (frame) pts = Number(frame[1]) / 1e6;
    const score = /^lavfi\.scd\.score=([0-9.]+)$/.exec(line.trim());
    if (!score) continue;
    if (pts !== null && inWindow(pts, cutSeconds, windowSeconds))
      frames.push({ seconds: pts, score: Number(score[1]) });
    pts = null;
  }
  return frames;
}

/** The change of scene among a window's frames: the frame that scored highest (at least SCENE_CHANGE_MIN_SCORE), and the one before it. */
export function sceneOf(frames: ScannedFrame[]): CutScan["scene"] {
  let best: number | null = null;
  for (let i = 1; i < frames.length; i++) {
    const { seconds, score } = frames[i];
    if (score < SCENE_CHANGE_MIN_SCORE || !(seconds > frames[i - 1].seconds)) continue;
    if (best === null || score > frames[best].score) best = i;
  }
  return best === null ? null : { beforeSeconds: frames[best - 1].seconds, atSeconds: frames[best].seconds };
}

export const inWindow = (t: unknown, cutSeconds: number, windowSeconds: number): t is number =>
  typeof t === "number" && Number.isFinite(t) && Math.abs(t - cutSeconds) <= windowSeconds;

/** A scan's change of scene, when both its frames are in the window and in order. */
export function validScene(scene: CutScan["scene"] | undefined, cutSeconds: number, windowSeconds: number) {
  return (
    !!scene &&
    inWindow(scene.beforeSeconds, cutSeconds, windowSeconds) &&
    inWindow(scene.atSeconds, cutSeconds, windowSeconds) &&
    scene.beforeSeconds < scene.atSeconds
  );
}
