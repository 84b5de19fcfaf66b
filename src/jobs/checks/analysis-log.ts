import { printableText } from "../../encoding/printable-text.ts";

/** What the analysis pass measured; null where it was not asked for or ffmpeg did not say. */
export type AnalysisMeasures = {
  /** Decoder and demuxer errors, in order (at most MAX_KEPT_ERRORS of them kept), and how many in all. */
  errors: string[];
  errorCount: number;
  integratedLufs: number | null;
  truePeakDbtp: number | null;
  psnr: number | null;
  ssim: number | null;
};

export const MAX_KEPT_ERRORS = 5;
const MAX_ERROR_CHARS = 300;
/** Of a line, only its start is read: what is measured fits in it, and no pattern runs over a long line. */
const MAX_LINE_CHARS = 1000;

/*
 * The pass's log (`-loglevel level+info`: every line starts with its source and level) read line by
 * line as ffmpeg writes it, not from a tail a long metadata dump could push the first errors out of.
 * Only lines in the exact form each filter writes count: a file's metadata, which ffmpeg prints in the
 * same log, is never read as a measure (a title holding "PSNR … average:99" measures nothing), nor as an
 * error (a title holding "[error]" is printed at info, after its own prefix). Every pattern is anchored
 * and has no nested or lazy repeats: linear in the line, whatever it holds.
 */
const ERROR_LINE = /^(?:\[[^\]\s]+ @ 0x[0-9a-f]+\] )?\[(?:error|fatal|panic)\] /;
const PSNR_SUMMARY =
  /^\[Parsed_psnr_\d+ @ 0x[0-9a-f]+\] \[info\] PSNR y:\S+ u:\S+ v:\S+ average:(inf|\d+(?:\.\d+)?) min:\S+ max:\S+$/;
const SSIM_SUMMARY =
  /^\[Parsed_ssim_\d+ @ 0x[0-9a-f]+\] \[info\] SSIM Y:\S+ \(\S+\) U:\S+ \(\S+\) V:\S+ \(\S+\) All:(\d+(?:\.\d+)?) \(\S+\)$/;
const LOUDNESS_SUMMARY = /^\[Parsed_ebur128_\d+ @ 0x[0-9a-f]+\] \[info\] Summary:$/;
const INTEGRATED = /^\s+I:\s+(-inf|-?\d+(?:\.\d+)?) LUFS$/;
const TRUE_PEAK = /^\s+Peak:\s+(-inf|-?\d+(?:\.\d+)?) dBFS$/;
/** ebur128 writes -inf for silence: as low as it measures. */
const SILENCE_DB = -120;
const PSNR_IDENTICAL_DB = 100;

export function createAnalysisLog() {
  const m: AnalysisMeasures = {
    errors: [],
    errorCount: 0,
    integratedLufs: null,
    truePeakDbtp: null,
    psnr: null,
    ssim: null,
  };
  let partial = "";
  let inLoudnessSummary = false;
  const db = (v: string) => (v === "-inf" ? SILENCE_DB : Number(v));
  const read = (whole: string) => {
    const line = whole.slice(0, MAX_LINE_CHARS).replace(/\r$/, "");
    if (ERROR_LINE.test(line)) {
      m.errorCount++;
      if (m.errors.length < MAX_KEPT_ERRORS) m.errors.push(printableText(line.slice(0, MAX_ERROR_CHARS)));
      return;
    }
    // The summary's lines follow its first, indented or empty; the first line that is neither ends it.
    if (inLoudnessSummary && (line === "" || /^\s/.test(line))) {
      const integrated = INTEGRATED.exec(line);
      if (integrated) m.integratedLufs = db(integrated[1]);
      const peak = TRUE_PEAK.exec(line);
      if (peak) m.truePeakDbtp = db(peak[1]);
      return;
    }
    inLoudnessSummary = LOUDNESS_SUMMARY.test(line);
    const psnr = PSNR_SUMMARY.exec(line);
    if (psnr) m.psnr = psnr[1] === "inf" ? PSNR_IDENTICAL_DB : Math.min(Number(psnr[1]), PSNR_IDENTICAL_DB);
    const ssim = SSIM_SUMMARY.exec(line);
    if (ssim) m.ssim = Number(ssim[1]);
  };
  return {
    /** A chunk of the log as it came, lines cut anywhere. */
    push(text: string) {
      const lines = (partial + text).split("\n");
      // A line longer than is read keeps only its start while the rest of it comes.
      partial = lines.pop()!.slice(0, MAX_LINE_CHARS);
      for (const line of lines) read(line);
    },
    measures(): AnalysisMeasures {
      if (partial) read(partial);
      partial = "";
      return { ...m, errors: [...m.errors] };
    },
  };
}
