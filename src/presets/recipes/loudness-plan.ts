import type { LoudnessMeasure, LoudnessTarget } from "./input-questions.ts";

/**
 * Loudness normalisation in two passes, as broadcasters and podcast platforms require: the runner
 * measures the input first (loudnorm's first pass), then the job applies one linear gain that lands
 * its integrated loudness on the target, unchanged in its dynamics, wherever that gain keeps the true
 * peak under the ceiling. Only where it would not does loudnorm's dynamic mode run (told what the first
 * pass measured, which makes it far closer than one pass): it compresses the loud parts toward the
 * target range and limits the peaks. The result says which ran and why (`presetReport.loudness`).
 */
export type LoudnessReport = {
  mode: "linear" | "dynamic";
  reason: string;
  /** The first pass's measures of the input; null when it could not measure (one pass ran). */
  before: LoudnessMeasure | null;
  /** The output's, measured after the encode by its loudness check; null without that check. */
  after: { integratedLufs: number | null; truePeakDbtp: number | null } | null;
};

/**
 * The true peak the filter aims under the ceiling: the AAC encode after it adds some (its reconstruction
 * overshoots between samples; 0.1 dB on the tests' speech, up to 1.3 dB on bursts of white noise), and the
 * ceiling is promised of the encoded file.
 */
export const ENCODE_TRUE_PEAK_HEADROOM_DB = 0.5;

const dB = (n: number) => `${n >= 0 ? "+" : ""}${n.toFixed(1)} dB`;

/** The audio filter and what it decided, from the first pass's measures (undefined: not asked; null: it failed). */
export function loudnessFilter(
  target: LoudnessTarget,
  measured: LoudnessMeasure | null | undefined,
): { filter: string; report: LoudnessReport } {
  const ceiling = Math.round((target.truePeakDbtp - ENCODE_TRUE_PEAK_HEADROOM_DB) * 100) / 100;
  const onePass = `loudnorm=I=${target.integratedLufs}:TP=${ceiling}:LRA=${target.rangeLu}`;
  if (!measured)
    return {
      filter: onePass,
      report: {
        mode: "dynamic",
        reason: "the input could not be measured first: loudnorm ran in one pass",
        before: null,
        after: null,
      },
    };
  // Silence is refused before this (loudnessRecipe): there is no gain to find.
  const gain = target.integratedLufs - (measured.integratedLufs ?? target.integratedLufs);
  const peak = measured.truePeakDbtp + gain;
  if (peak <= ceiling)
    return {
      filter: `volume=${gain.toFixed(2)}dB`,
      report: {
        mode: "linear",
        reason: `one gain of ${dB(gain)} lands it on ${target.integratedLufs} LUFS with its true peak at ${peak.toFixed(1)} dBTP (aimed at most ${ceiling} for the ${target.truePeakDbtp} dBTP ceiling); its dynamics, and loudness range of ${measured.rangeLu} LU, are the input's`,
        before: measured,
        after: null,
      },
    };
  if (!loudnormTakes(measured))
    return {
      filter: onePass,
      report: {
        mode: "dynamic",
        reason: `one gain of ${dB(gain)} would put its true peak at ${peak.toFixed(1)} dBTP, over the ceiling, and its measures (${measured.integratedLufs} LUFS, true peak ${measured.truePeakDbtp} dBTP) lie outside what loudnorm's second pass takes: loudnorm ran in one pass`,
        before: measured,
        after: null,
      },
    };
  const given = [
    `measured_I=${measured.integratedLufs}`,
    `measured_TP=${measured.truePeakDbtp}`,
    `measured_LRA=${measured.rangeLu}`,
    `measured_thresh=${measured.thresholdLufs}`,
    `offset=${measured.targetOffsetLu}`,
  ].join(":");
  return {
    filter: `${onePass}:${given}:linear=false`,
    report: {
      mode: "dynamic",
      reason: `one gain of ${dB(gain)} would put its true peak at ${peak.toFixed(1)} dBTP, over the ${target.truePeakDbtp} dBTP ceiling: loudnorm's dynamic mode compresses and limits it, told what the first pass measured`,
      before: measured,
      after: null,
    },
  };
}

/**
 * Whether loudnorm's second pass accepts these measures (its options' ranges in ffmpeg 5.1's
 * af_loudnorm.c): audio can measure louder than 0 LUFS (float samples, a full-scale square wave, many
 * channels), which loudnorm refuses as `measured_I`, and the job would fail.
 */
function loudnormTakes(m: LoudnessMeasure): boolean {
  const within = (v: number | null, min: number, max: number) => v !== null && v >= min && v <= max;
  return (
    within(m.integratedLufs, -99, 0) &&
    within(m.thresholdLufs, -99, 0) &&
    within(m.truePeakDbtp, -99, 99) &&
    within(m.targetOffsetLu, -99, 99) &&
    within(m.rangeLu, 0, 99)
  );
}
