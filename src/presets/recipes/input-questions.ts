/**
 * What a recipe asks of its inputs beyond their probe, before it plans: the runner answers each with an
 * ffprobe or ffmpeg of its own in the job's sandbox (container/src/answer-questions.ts), then plans with
 * the answers. The Worker plans for a typical input without them, so every recipe plans something sound
 * without its answers too (the fallback a failed measurement leaves).
 * Zod-free and dependency-free, like everything under recipes/: the runner imports it.
 */
export type InputQuestion =
  /** The key frame a decode or a copy starting at `atSeconds` (from the file's start) must begin at. */
  | { kind: "keyframe"; input: string; atSeconds: number }
  /** The first audio track's loudness, measured as loudnorm's first pass measures it, against `target`. */
  | { kind: "loudness"; input: string; target: LoudnessTarget };

export type LoudnessTarget = { integratedLufs: number; truePeakDbtp: number; rangeLu: number };

/** loudnorm's first pass (its `print_format=json`): what a second pass is told it measured. */
export type LoudnessMeasure = {
  /** Integrated loudness; null for silence (below the −70 LUFS gate: ffmpeg says `-inf`). */
  integratedLufs: number | null;
  truePeakDbtp: number;
  rangeLu: number;
  thresholdLufs: number;
  /** loudnorm's own correction for its dynamic mode's last-stage limiter. */
  targetOffsetLu: number;
};

/** The answers, by question; a question without an answer (its measuring failed) is missing or null. */
export type InputAnswers = {
  /** By keyframeKey: the key frame's time from the file's start, null when none lies within the look-back. */
  keyframes: Map<string, number | null>;
  /** By input name. */
  loudness: Map<string, LoudnessMeasure | null>;
};

export const keyframeKey = (input: string, atSeconds: number) => `${input}@${atSeconds}`;

/** How far before the asked time the runner looks for a key frame (a demux, nothing decoded). */
export const KEYFRAME_LOOKBACK_SECONDS = 30;

export const noAnswers = (): InputAnswers => ({ keyframes: new Map(), loudness: new Map() });

/** The answer to a key frame question the recipe asked: a time, or null (none found, or not asked). */
export function keyframeAnswer(answers: InputAnswers | undefined, input: string, atSeconds: number): number | null {
  return answers?.keyframes.get(keyframeKey(input, atSeconds)) ?? null;
}

/** The question a seek into an input without an index asks (none where its index, or a start at 0, does). */
export function keyframeQuestion(
  input: { name: string; facts: { seekIndex: boolean; video: unknown } },
  atSeconds: number | string,
): InputQuestion[] {
  return !input.facts.seekIndex && input.facts.video && typeof atSeconds === "number" && atSeconds > 0
    ? [{ kind: "keyframe", input: input.name, atSeconds }]
    : [];
}
