import { describe, expect, it } from "vitest";
import { dispatchRetryDelaySeconds } from "../../src/jobs/lifecycle/retry-policy.ts";

describe("dispatch retries", () => {
  it("back off exponentially up to a minute", () => {
    expect([1, 2, 3, 6, 10].map(dispatchRetryDelaySeconds)).toEqual([2, 4, 8, 60, 60]);
  });
});
