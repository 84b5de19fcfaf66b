import { describe, expect, it } from "vitest";
import { alarmDelayMs, dispatchRetryDelaySeconds } from "../../src/jobs/lifecycle/retry-policy.ts";

describe("dispatch retries", () => {
  it("back off exponentially up to a minute", () => {
    expect([1, 2, 3, 6, 10].map(dispatchRetryDelaySeconds)).toEqual([2, 4, 8, 60, 60]);
  });
});

describe("a watching coordinator's alarm (alarmDelayMs)", () => {
  const watch = { state: { jobId: "j", phase: "watch" as const, misses: 0 }, delayMs: 1000 };
  it("goes half an interval later while the runner speaks, at the usual pace once it has been quiet an interval", () => {
    expect(alarmDelayMs(watch, 0)).toBe(1500);
    expect(alarmDelayMs(watch, 1000)).toBe(1500);
    expect(alarmDelayMs(watch, 1001)).toBe(1000);
    expect(alarmDelayMs(watch, Date.now())).toBe(1000); // never heard: spoke at epoch 0
  });
  it("leaves every other phase's delay alone (a retry's wait, a capacity wait)", () => {
    expect(alarmDelayMs({ state: { jobId: "j", phase: "dispatch", misses: 0 }, delayMs: 5000 }, 0)).toBe(5000);
  });
});
