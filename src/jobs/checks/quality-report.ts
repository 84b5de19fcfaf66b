/**
 * A video output's quality against its source, frame by frame: the analysis pass's `ssim` and `psnr`
 * filters write one line per frame to its stdout (`n:1 … All:0.97 (15.3)`, `n:1 mse_avg:… psnr_avg:36.5 …`),
 * read here as they come, summarised as the mean, the 5th percentile and the worst frame of each, and
 * the worst second (its frames' mean SSIM, lowest) with its time. Pure: verify-output.ts feeds it.
 */
export type MetricSummary = { mean: number; p5: number; min: number };
export type QualityReport = {
  frames: number;
  ssim: MetricSummary;
  psnr: MetricSummary;
  /** The second (of the output's frames, at its frame rate) whose mean SSIM is lowest. */
  worstSecond: { startSeconds: number; ssim: number; psnr: number };
};

/** Frames kept (9 hours at 30 fps): a longer output's report covers its first this many frames. */
const MAX_FRAMES = 1_000_000;
/** PSNR of identical frames is infinite: reported as this many dB. */
const PSNR_IDENTICAL_DB = 100;
export const SSIM_LINE = /^n:(\d+) Y:[\d.]+ .*All:([\d.]+)/;
const PSNR_LINE = /^n:(\d+) mse_avg:\S+ .*psnr_avg:(inf|[\d.]+)/;

export function createFrameStats() {
  const ssim: number[] = [];
  const psnr: number[] = [];
  let partial = "";
  const read = (line: string) => {
    const s = SSIM_LINE.exec(line);
    if (s && ssim.length < MAX_FRAMES) ssim.push(Number(s[2]));
    const p = s ? null : PSNR_LINE.exec(line);
    if (p && psnr.length < MAX_FRAMES)
      psnr.push(p[2] === "inf" ? PSNR_IDENTICAL_DB : Math.min(Number(p[2]), PSNR_IDENTICAL_DB));
  };
  return {
    /** A chunk of the pass's stdout, lines possibly cut anywhere. */
    push(text: string) {
      const lines = (partial + text).split("\n");
      partial = lines.pop()!.slice(0, 512);
      for (const line of lines) read(line);
    },
    /** The report, or null when no frame was compared; `fps` groups frames into seconds (25 when unknown). */
    report(fps: number | null): QualityReport | null {
      if (partial) read(partial);
      partial = "";
      const frames = Math.min(ssim.length, psnr.length);
      if (frames === 0) return null;
      const perSecond = Math.max(1, Math.round(fps && fps > 0 ? fps : 25));
      let worst = { startSeconds: 0, ssim: Number.POSITIVE_INFINITY, psnr: 0 };
      for (let start = 0; start < frames; start += perSecond) {
        const end = Math.min(frames, start + perSecond);
        const s = mean(ssim, start, end);
        if (s < worst.ssim)
          worst = {
            startSeconds: round(start / perSecond, 3),
            ssim: round(s, 5),
            psnr: round(mean(psnr, start, end), 2),
          };
      }
      return {
        frames,
        ssim: summary(ssim.slice(0, frames), 5),
        psnr: summary(psnr.slice(0, frames), 2),
        worstSecond: worst,
      };
    },
  };
}

function mean(values: number[], start: number, end: number): number {
  let sum = 0;
  for (let i = start; i < end; i++) sum += values[i];
  return sum / (end - start);
}

function summary(values: number[], places: number): MetricSummary {
  const sorted = Float64Array.from(values).sort();
  // The 5th percentile by nearest rank: 5 % of the frames are at or below it.
  const p5 = sorted[Math.max(0, Math.ceil(sorted.length * 0.05) - 1)];
  return { mean: round(mean(values, 0, values.length), places), p5: round(p5, places), min: round(sorted[0], places) };
}

const round = (n: number, places: number) => Math.round(n * 10 ** places) / 10 ** places;
