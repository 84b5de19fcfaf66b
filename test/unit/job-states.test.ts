import { describe, expect, it } from "vitest";
import { canTransition, isTerminal, JOB_STATUSES, sourcesOf } from "../../src/jobs/transitions/job-states.ts";

describe("job states", () => {
  it("allows exactly the documented transitions", () => {
    const allowed = JOB_STATUSES.flatMap((from) => JOB_STATUSES.filter((to) => canTransition(from, to)).map((to) => `${from}->${to}`));
    expect(allowed.sort()).toEqual(
      [
        "queued->running", "queued->canceled", "queued->rejected", "queued->failed",
        "running->completed", "running->failed", "running->canceled", "running->queued",
      ].sort(),
    );
  });

  it("lets nothing leave a terminal state", () => {
    for (const s of ["completed", "failed", "canceled", "rejected"] as const) {
      expect(isTerminal(s)).toBe(true);
      expect(JOB_STATUSES.some((to) => canTransition(s, to))).toBe(false);
    }
    expect(isTerminal("queued")).toBe(false);
    expect(isTerminal("running")).toBe(false);
  });

  it("derives update guards from the table", () => {
    expect(sourcesOf("canceled")).toEqual(["queued", "running"]);
    expect(sourcesOf("completed")).toEqual(["running"]);
    expect(sourcesOf("queued")).toEqual(["running"]);
    expect(sourcesOf("rejected")).toEqual(["queued"]);
  });
});
