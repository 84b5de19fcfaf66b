/**
 * Decides when a running ffmpeg has stopped making progress, so no job runs without end.
 *
 * Output is what ffmpeg's `-progress` blocks report: output time, frames and bytes written. When none
 * of them moves, the process is either idle (waiting for something that never comes: a reader blocked,
 * `-re` on an input whose timestamps jump ahead by hours) or busy without output (decoding up to an
 * `-ss` placed after `-i`, a filter such as `reverse` or `palettegen` that holds every frame until the
 * end). Idle is a stall soon; busy is given much longer, because that work ends in output.
 */
export type StallWindows = {
  /** No new output and no CPU used for this long: stalled. */
  idleMs: number;
  /** No new output for this long, however busy: stalled. */
  busyMs: number;
};

/** Less CPU than this share of one core between two samples counts as idle (ffmpeg's own polling loop uses under 1%). */
export const BUSY_CPU_SHARE = 0.05;

/** The -progress keys that move when ffmpeg makes output. */
const OUTPUT_KEYS = ["out_time_us", "frame", "total_size"] as const;

export type StallWatch = {
  /** One `-progress` block, as parsed. */
  progressSeen: (block: Readonly<Record<string, string>>) => void;
  /** CPU milliseconds the process tree has used so far, or null where that cannot be read. */
  cpuSampled: (cpuMs: number | null) => void;
  /** Why the process counts as stalled now, or null while it makes progress. */
  verdict: () => string | null;
};

export function createStallWatch(binary: string, windows: StallWindows, now: () => number = Date.now): StallWatch {
  const startedAt = now();
  let outputSignature: string | null = null;
  let outputMovedAt = startedAt;
  let workedAt = startedAt;
  let lastSample: { at: number; cpuMs: number } | null = null;
  const seconds = (ms: number) => Math.round(ms / 1000);
  return {
    progressSeen(block) {
      const signature = OUTPUT_KEYS.map((k) => block[k] ?? "").join("|");
      // The first block is the baseline (ffmpeg's first report comes half a second in): only a change is output.
      if (outputSignature !== null && signature !== outputSignature) outputMovedAt = now();
      outputSignature = signature;
    },
    cpuSampled(cpuMs) {
      const at = now();
      if (cpuMs === null) {
        // Nothing to tell idle from busy by: only the busy window applies.
        workedAt = at;
        return;
      }
      if (lastSample && cpuMs - lastSample.cpuMs >= (at - lastSample.at) * BUSY_CPU_SHARE) workedAt = at;
      lastSample = { at, cpuMs };
    },
    verdict() {
      const t = now();
      const quietMs = t - outputMovedAt;
      if (quietMs >= windows.busyMs) {
        return `${binary} wrote no new output for ${seconds(quietMs)} s although it kept working, and it was stopped (a filter that holds every frame until the end, such as reverse, or -ss after -i on a long input: put -ss before -i)`;
      }
      const idleMs = t - Math.max(outputMovedAt, workedAt);
      if (idleMs >= windows.idleMs) {
        return `${binary} made no progress for ${seconds(idleMs)} s (no new output and no work: it was waiting for something that never came), and it was stopped`;
      }
      return null;
    },
  };
}
