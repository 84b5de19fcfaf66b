import { describe, expect, it } from "vitest";
import { billableSeconds, endingFromRunner } from "../../src/jobs/lifecycle/job-endings.ts";
import { decodeCursor, encodeCursor } from "../../src/storage/keyset-page.ts";
import { dispatchRetryDelaySeconds } from "../../src/jobs/lifecycle/retry-policy.ts";

describe("billing", () => {
  it("rounds runtime up to whole seconds; never-ran is 0", () => {
    expect(billableSeconds(0)).toBe(0);
    expect(billableSeconds(1)).toBe(1);
    expect(billableSeconds(1000)).toBe(1);
    expect(billableSeconds(1001)).toBe(2);
  });

  it("charges runtimeSeconds × credits per second", () => {
    const f = endingFromRunner(
      { status: "canceled", exitCode: null, runtimeMs: 2300, errorCode: "CANCELED", errorMessage: "x", stdout: "", stderrTail: "", outputs: [], timings: { fetchMs: 0, runMs: 2300, storeMs: 0 }, finishedAt: "" },
      3,
    );
    expect(f).toMatchObject({ status: "canceled", runtimeSeconds: 3, creditsCharged: 9 });
  });
});

describe("list cursors", () => {
  it("round-trip and refuse garbage", () => {
    const c = { createdAt: "2026-01-01T00:00:00.000Z", id: "0b0c4a52-6f5c-4f5f-9d55-6c0e0d3b8d11" };
    expect(decodeCursor(encodeCursor(c))).toEqual(c);
    expect(decodeCursor("!!!")).toBeNull();
    expect(decodeCursor(btoa("[1,2]"))).toBeNull();
  });
});

describe("dispatch retries", () => {
  it("back off exponentially up to a minute", () => {
    expect([1, 2, 3, 6, 10].map(dispatchRetryDelaySeconds)).toEqual([2, 4, 8, 60, 60]);
  });
});
