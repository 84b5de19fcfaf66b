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
 * The pass's two outputs, each read line by line as ffmpeg writes it. Its log (stderr, at
 * `-loglevel level+error`) gives the errors a full decode counts: ffmpeg prints a file's metadata at
 * info, so none of it is in this log (a tag's name holding a newline and "[error]" once wrote a line
 * of its own there). Its stdout gives the measures, written by the filters alone: ssim's and psnr's
 * line per frame (quality-report.ts) and ebur128's frame values for its two keys (ametadata), where no
 * byte of the file's own text goes. Every pattern is anchored, with no nested or lazy repeat.
 */
const ERROR_LINE = /^(?:\[[^\]\s]+ @ 0x[0-9a-f]+\] )?\[(?:error|fatal|panic)\] /;
const INTEGRATED = /^lavfi\.r128\.I=(-?\d+(?:\.\d+)?|-inf)$/;
const TRUE_PEAK = /^lavfi\.r128\.true_peak=(\d+(?:\.\d+)?)$/;
/** ebur128 gives -inf (and a true peak of 0) for silence: as low as it measures. */
const SILENCE_DB = -120;

/** Splits text that comes in chunks into lines, each cut to MAX_LINE_CHARS, for `read`. */
function lineReader(read: (line: string) => void) {
  let partial = "";
  return {
    push(text: string) {
      const lines = (partial + text).split("\n");
      // A line longer than is read keeps only its start while the rest of it comes.
      partial = lines.pop()!.slice(0, MAX_LINE_CHARS);
      for (const line of lines) read(line.slice(0, MAX_LINE_CHARS).replace(/\r$/, ""));
    },
    end() {
      if (partial) read(partial.replace(/\r$/, ""));
      partial = "";
    },
  };
}

/** The pass's log: its error lines, counted, the first kept (printable: a file's text may be quoted). */
export function createErrorLog() {
  const errors: string[] = [];
  let count = 0;
  const lines = lineReader((line) => {
    if (!ERROR_LINE.test(line)) return;
    count++;
    if (errors.length < MAX_KEPT_ERRORS) errors.push(printableText(line.slice(0, MAX_ERROR_CHARS)));
  });
  return {
    push: lines.push,
    errors() {
      lines.end();
      return { errors: [...errors], errorCount: count };
    },
  };
}

/** ebur128's values on the pass's stdout: the last integrated loudness, and the true peak so far (linear). */
export function createLoudnessLines() {
  let integratedLufs: number | null = null;
  let peak: number | null = null;
  const lines = lineReader((line) => {
    const i = INTEGRATED.exec(line);
    if (i) integratedLufs = i[1] === "-inf" ? SILENCE_DB : Number(i[1]);
    const p = TRUE_PEAK.exec(line);
    if (p) peak = Number(p[1]);
  });
  return {
    push: lines.push,
    measures(): { integratedLufs: number | null; truePeakDbtp: number | null } {
      lines.end();
      const dbtp = peak === null ? null : peak > 0 ? Math.round(20 * Math.log10(peak) * 10) / 10 : SILENCE_DB;
      return { integratedLufs, truePeakDbtp: dbtp };
    },
  };
}
