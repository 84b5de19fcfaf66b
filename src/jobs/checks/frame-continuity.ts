/**
 * Whether a video's frames follow each other without a hole or a repeat, from its packets' timestamps
 * (in presentation order): each interval against the stream's usual one (the median), a gap being one
 * longer than `maxGapFrames` of it, a repeat one of 0. What a split encode's join checks of its output
 * (a frame lost or doubled where two segments meet), and any output can ask. Pure.
 */
export type Continuity = {
  frames: number;
  usualIntervalMs: number | null;
  gaps: number;
  repeats: number;
  /** The longest gap, and where it starts (seconds from the first frame); null when there is none. */
  largestGap: { ms: number; atSeconds: number } | null;
};

export function continuityOf(times: Float64Array, maxGapFrames: number): Continuity {
  const sorted = Float64Array.from(times).sort();
  const intervals = new Float64Array(Math.max(0, sorted.length - 1));
  for (let i = 1; i < sorted.length; i++) intervals[i - 1] = sorted[i] - sorted[i - 1];
  if (intervals.length === 0)
    return { frames: sorted.length, usualIntervalMs: null, gaps: 0, repeats: 0, largestGap: null };
  const usual = Float64Array.from(intervals).sort()[Math.floor(intervals.length / 2)];
  let gaps = 0;
  let repeats = 0;
  let largestGap: Continuity["largestGap"] = null;
  for (let i = 0; i < intervals.length; i++) {
    const d = intervals[i];
    // Timestamps are in microseconds at best (Matroska keeps milliseconds): anything within 1 µs is the same.
    if (d < 1e-6) repeats++;
    else if (usual > 0 && d > usual * maxGapFrames + 1e-6) {
      gaps++;
      if (!largestGap || d * 1000 > largestGap.ms)
        largestGap = { ms: round(d * 1000), atSeconds: round(sorted[i] - sorted[0]) };
    }
  }
  return { frames: sorted.length, usualIntervalMs: round(usual * 1000), gaps, repeats, largestGap };
}

const round = (n: number) => Math.round(n * 1000) / 1000;
