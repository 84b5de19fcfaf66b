import { describe, expect, it } from "vitest";
import { billableSeconds, endingFromRunner } from "../../src/jobs/lifecycle/job-endings.ts";

describe("billing", () => {
  it("rounds runtime up to whole seconds; never-ran is 0", () => {
    expect(billableSeconds(0)).toBe(0);
    expect(billableSeconds(1)).toBe(1);
    expect(billableSeconds(1000)).toBe(1);
    expect(billableSeconds(1001)).toBe(2);
  });

  it("charges runtimeSeconds × credits per second", () => {
    const f = endingFromRunner(
      {
        status: "canceled",
        exitCode: null,
        runtimeMs: 2300,
        errorCode: "CANCELED",
        errorMessage: "x",
        stdout: "",
        stderrTail: "",
        outputs: [],
        timings: { fetchMs: 0, runMs: 2300, storeMs: 0 },
        finishedAt: "",
      },
      3,
    );
    expect(f).toMatchObject({ status: "canceled", runtimeSeconds: 3, creditsCharged: 9 });
  });
});
