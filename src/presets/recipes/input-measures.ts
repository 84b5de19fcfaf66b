import { keyframeAtOrBefore, packetsFromListing } from "../../jobs/split/keyframe-scan.ts";
import { KEYFRAME_LOOKBACK_SECONDS, type LoudnessMeasure, type LoudnessTarget } from "./input-questions.ts";

/*
 * How the runner answers a recipe's questions (input-questions.ts): each one's command, after the
 * sandbox's input options, and how its output is read. Read as untrusted: a file's own metadata is in
 * the same log, and a number that is not one answers nothing.
 */

/**
 * ffprobe's options (before the path) listing the video's packets in the look-back before `absoluteSeconds`.
 * A look-back reaching the file's start reads from there, with no seek: an MPEG-TS whose clock wrapped
 * starts at a negative time, which a seek in `-read_intervals` does not reach.
 */
export function keyframeListingOptions(absoluteSeconds: number, startSeconds: number): string[] {
  const from = absoluteSeconds - KEYFRAME_LOOKBACK_SECONDS;
  const end = (absoluteSeconds + 0.001).toFixed(6);
  return [
    "-select_streams",
    "V:0",
    "-read_intervals",
    from > startSeconds ? `${from.toFixed(6)}%${end}` : `%${end}`,
    "-show_entries",
    "packet=pts_time,flags",
    "-of",
    "csv=p=0",
  ];
}

/** The listing's key frame at or before `absoluteSeconds`, from the file's start; null when none was listed. */
export function keyframeFromListing(stdout: string, absoluteSeconds: number, startSeconds: number): number | null {
  const key = keyframeAtOrBefore(packetsFromListing(stdout), absoluteSeconds + 0.0005);
  return key === null ? null : Math.max(0, key - startSeconds);
}

/** ffmpeg's arguments after the input's options and `-i path`: loudnorm's first pass over the first audio track. */
export function loudnessPassArguments(target: LoudnessTarget): string[] {
  return [
    "-map",
    "0:a:0",
    "-af",
    `loudnorm=I=${target.integratedLufs}:TP=${target.truePeakDbtp}:LRA=${target.rangeLu}:print_format=json`,
    "-f",
    "null",
    "-",
  ];
}

/** What a silent input's -inf peak and threshold are reported as (JSON holds no infinity). */
const SILENCE_FLOOR = -144;

/** The log options that let loudnorm's summary through (it prints at `info`) with each line's source named. */
export const LOUDNESS_LOG_OPTIONS = ["-hide_banner", "-nostdin", "-nostats", "-loglevel", "level+info"];

/**
 * loudnorm's summary in the pass's log: the JSON after the last line loudnorm itself starts (an input's
 * metadata, printed earlier and prefixed `[info]`, cannot start one). Null when it is missing or malformed.
 */
export function loudnessFromLog(stderr: string): LoudnessMeasure | null {
  const starts = [...stderr.matchAll(/^\[Parsed_loudnorm_\d+ @ 0x[0-9a-f]+\] \[info\] *\n(\{[^{}]*\})/gm)];
  const last = starts.at(-1);
  if (!last) return null;
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(last[1]) as Record<string, unknown>;
  } catch {
    return null;
  }
  const value = (key: string) => {
    const v = json[key];
    if (v === "-inf") return Number.NEGATIVE_INFINITY;
    const n = typeof v === "string" && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : Number.NaN;
    return n;
  };
  const measure = {
    integratedLufs: value("input_i"),
    truePeakDbtp: value("input_tp"),
    rangeLu: value("input_lra"),
    thresholdLufs: value("input_thresh"),
    targetOffsetLu: value("target_offset"),
  };
  // Digital silence measures -inf throughout; that is an answer (silence), not a failure to measure.
  const silent = measure.integratedLufs === Number.NEGATIVE_INFINITY;
  const floor = (v: number) => (silent && v === Number.NEGATIVE_INFINITY ? SILENCE_FLOOR : v);
  const rest = [floor(measure.truePeakDbtp), measure.rangeLu, floor(measure.thresholdLufs)];
  if (!rest.every(Number.isFinite) || (!silent && !Number.isFinite(measure.integratedLufs))) return null;
  return {
    integratedLufs: silent ? null : measure.integratedLufs,
    truePeakDbtp: rest[0],
    rangeLu: rest[1],
    thresholdLufs: rest[2],
    targetOffsetLu: Number.isFinite(measure.targetOffsetLu) ? measure.targetOffsetLu : 0,
  };
}
