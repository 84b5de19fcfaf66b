import type { AnalysisMeasures } from "./analysis-log.ts";
import type { Continuity } from "./frame-continuity.ts";
import type { CheckResult, OutputChecks } from "./output-checks.ts";
import type { QualityReport } from "./quality-report.ts";

/*
 * What an output's checks are judged on (evaluate-checks.ts, measured-results.ts): the facts the runner
 * gathers of it (container/src/verify-output.ts), and the small readings and wordings both judges share.
 */

export type Stream = Record<string, unknown>;
export type OutputFacts = {
  /** ffprobe's JSON of the output (`-show_format -show_streams`), or null when it read nothing. */
  probe: { format?: Record<string, unknown>; streams?: Stream[] } | null;
  size: number;
  /** The duration of each input a check names, from its probe (null: unknown). */
  inputDurations: Record<string, number | null>;
  /** The analysis pass's measures; null when it was not run, with `analysisFailure` when it failed. */
  analysis: AnalysisMeasures | null;
  analysisFailure: string | null;
  /** The quality check's frame-by-frame report against its input (null without one, or when no frame was compared). */
  qualityReport?: QualityReport | null;
  /** The first video stream's packet count (`frameCount`), null when not counted. */
  videoPackets: number | null;
  /** The first video stream's frame continuity (`continuity`), null when not measured. */
  continuity?: Continuity | null;
  /** Whether the index comes before the media (`faststart`): null when the file is not MP4/MOV boxes. */
  indexFirst: boolean | null;
  /** Whether the runner's ffmpeg can measure VMAF. */
  vmafAvailable: boolean;
};

/** The inputs a check names (a duration `asInput`, a quality `against`): each must be one of the job's. */
export function inputsNamedByChecks(checks: OutputChecks): string[] {
  return [checks.durationSeconds?.asInput, checks.quality?.against].filter((n): n is string => n !== undefined);
}

export const num = (v: unknown): number | null => {
  const n = typeof v === "number" ? v : Number(v);
  return v === undefined || v === null || v === "N/A" || v === "" || !Number.isFinite(n) ? null : n;
};
export const ratio = (v: unknown): number | null => {
  const m = /^(\d+)\/(\d+)$/.exec(String(v ?? ""));
  return m && Number(m[2]) !== 0 ? Number(m[1]) / Number(m[2]) : null;
};
/** The first video stream's average frame rate (its nominal one where that is unknown), from a probe. */
export function firstVideoFrameRate(probe: OutputFacts["probe"]): number | null {
  const video = probe?.streams?.find((s) => s.codec_type === "video");
  return ratio(video?.avg_frame_rate) ?? ratio(video?.r_frame_rate);
}
export const round = (n: number | null, places = 3) =>
  n === null ? null : Math.round(n * 10 ** places) / 10 ** places;
export const within = (measured: number | null, wanted: number, tolerance: number) =>
  measured !== null && Math.abs(measured - wanted) <= tolerance + 1e-9;
export const inBounds = (v: number | null, b: { min?: number; max?: number }) =>
  v !== null && (b.min === undefined || v >= b.min) && (b.max === undefined || v <= b.max);
export const boundsText = (b: { min?: number; max?: number }, unit: string) =>
  [b.min !== undefined ? `at least ${b.min}${unit}` : "", b.max !== undefined ? `at most ${b.max}${unit}` : ""]
    .filter(Boolean)
    .join(" and ");

export function result(
  check: string,
  passed: boolean,
  wanted: unknown,
  measured: unknown,
  message: string,
): CheckResult {
  return { check, passed, wanted, measured, message };
}

/**
 * How long a file's media lasts: its longest video or audio stream where the container says (MP4 does),
 * else the container's duration (which a subtitle or data track may stretch). Inputs are measured the same way.
 */
export function mediaDurationSeconds(probe: OutputFacts["probe"]): number | null {
  const streams = (probe?.streams ?? []).filter((s) => s.codec_type === "video" || s.codec_type === "audio");
  const lengths = streams.map((s) => num(s.duration)).filter((d): d is number => d !== null);
  return lengths.length ? Math.max(...lengths) : num(probe?.format?.duration);
}
