import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY_DELAYS_SECONDS, maxAttempts, retryDelaySeconds } from "../../src/webhooks/retry-schedule.ts";

describe("retry schedule", () => {
  it("follows the documented default, with at most ±10 % jitter, and stops after the last attempt", () => {
    expect(DEFAULT_RETRY_DELAYS_SECONDS).toEqual([5, 60, 300, 1800, 7200, 21600, 43200]);
    expect(maxAttempts(DEFAULT_RETRY_DELAYS_SECONDS)).toBe(8);
    expect(
      DEFAULT_RETRY_DELAYS_SECONDS.map((_, i) => retryDelaySeconds(i + 1, DEFAULT_RETRY_DELAYS_SECONDS, () => 0.5)),
    ).toEqual(DEFAULT_RETRY_DELAYS_SECONDS);
    expect(retryDelaySeconds(2, DEFAULT_RETRY_DELAYS_SECONDS, () => 0)).toBe(54);
    expect(retryDelaySeconds(2, DEFAULT_RETRY_DELAYS_SECONDS, () => 1)).toBe(66);
    expect(retryDelaySeconds(7, DEFAULT_RETRY_DELAYS_SECONDS, () => 1)).toBe(43200);
    expect(retryDelaySeconds(8, DEFAULT_RETRY_DELAYS_SECONDS)).toBeNull();
  });
});
