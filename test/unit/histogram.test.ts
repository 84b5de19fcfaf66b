import { describe, expect, it } from "vitest";
import { bucketOf, bucketUpperMs, quantileOf, type Histogram } from "../../src/metrics/histogram.ts";

/** A seeded generator, so a failure can be rerun. */
function random(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
}

describe("the durations' histograms", () => {
  it("put each value in a bucket whose top is at most 9 % above it, never below", () => {
    for (const ms of [1, 2, 3, 7, 99, 100, 101, 1234, 59_999, 3_600_000]) {
      const top = bucketUpperMs(bucketOf(ms));
      expect(top).toBeGreaterThanOrEqual(ms);
      expect(top).toBeLessThanOrEqual(Math.ceil(ms * 1.091));
    }
  });

  it("read back percentiles within 9 % of the exact ones, merged from parts as from the whole", () => {
    const next = random(7);
    // Run times spread over four orders of magnitude, as jobs' are.
    const values = Array.from({ length: 5000 }, () => Math.round(10 ** (1 + next() * 4)));
    const whole: Histogram = new Map();
    const parts: Histogram[] = [new Map(), new Map(), new Map()];
    values.forEach((v, i) => {
      whole.set(bucketOf(v), (whole.get(bucketOf(v)) ?? 0) + 1);
      const part = parts[i % 3];
      part.set(bucketOf(v), (part.get(bucketOf(v)) ?? 0) + 1);
    });
    const merged: Histogram = new Map();
    for (const p of parts) for (const [b, n] of p) merged.set(b, (merged.get(b) ?? 0) + n);
    const sorted = [...values].sort((a, b) => a - b);
    for (const q of [0.5, 0.9, 0.99]) {
      const exact = sorted[Math.ceil(q * sorted.length) - 1];
      const read = quantileOf(whole, q)!;
      expect(read).toBeGreaterThanOrEqual(exact);
      expect(read).toBeLessThanOrEqual(exact * 1.091);
      expect(quantileOf(merged, q)).toBe(read);
    }
    expect(quantileOf(new Map(), 0.5)).toBeNull();
  });
});
