/**
 * Durations kept as histograms (as Prometheus' native histograms and HdrHistogram do): a value falls
 * in bucket ceil(log2(ms) × BUCKETS_PER_DOUBLING), so each bucket spans 9 % of its values and any
 * percentile read back is within 9 % of the true one, however many values there are. Summed hour by
 * hour and account by account, they merge exactly; a list of raw values would not.
 */
export const BUCKETS_PER_DOUBLING = 8;
/** The bucket of counts and sums that are not distributions. */
export const NO_BUCKET = -1;

export function bucketOf(ms: number): number {
  return ms <= 1 ? 0 : Math.ceil(Math.log2(ms) * BUCKETS_PER_DOUBLING);
}

/** The largest value a bucket holds (what a percentile in it is reported as). */
export function bucketUpperMs(bucket: number): number {
  return bucket <= 0 ? 1 : Math.round(2 ** (bucket / BUCKETS_PER_DOUBLING));
}

export type Histogram = Map<number, number>;

/** The `q` quantile (0 < q ≤ 1) of the values counted in `histogram`, or null when it is empty. */
export function quantileOf(histogram: Histogram, q: number): number | null {
  const total = [...histogram.values()].reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const rank = Math.ceil(q * total);
  let seen = 0;
  for (const bucket of [...histogram.keys()].sort((a, b) => a - b)) {
    seen += histogram.get(bucket)!;
    if (seen >= rank) return bucketUpperMs(bucket);
  }
  return null;
}
