import { describe, expect, it } from "vitest";
import { canTransition, isTerminal, JOB_STATUSES, statusGuard } from "../../src/jobs/transitions/job-states.ts";

describe("job states", () => {
  it("allows exactly the documented transitions", () => {
    const allowed = JOB_STATUSES.flatMap((from) =>
      JOB_STATUSES.filter((to) => canTransition(from, to)).map((to) => `${from}->${to}`),
    );
    expect(allowed.sort()).toEqual(
      [
        "queued->running",
        "queued->canceled",
        "queued->rejected",
        "queued->failed",
        "running->completed",
        "running->failed",
        "running->canceled",
        "running->queued",
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

  it("derives each transition's update guard from the table", () => {
    expect(statusGuard("cancel")).toBe("status IN ('queued', 'running')");
    expect(statusGuard("complete")).toBe("status IN ('running')");
    expect(statusGuard("requeue")).toBe("status IN ('queued', 'running')");
    expect(statusGuard("reject")).toBe("status IN ('queued')");
    expect(statusGuard("start")).toBe("status IN ('queued')");
  });
});
