import type { JobErrorCode } from "../../src/api/error-codes.ts";
import type { RunnerOutcome } from "../../src/runner/runner-protocol.ts";

/** Thrown inside a job's phases to end it with this outcome (caught once, in executeJob). */
export class JobEnded extends Error {
  readonly outcome: RunnerOutcome;
  constructor(outcome: RunnerOutcome) {
    super(outcome.errorMessage ?? outcome.status);
    this.outcome = outcome;
  }
}

export function ended(errorCode: JobErrorCode, errorMessage: string, extra: Partial<RunnerOutcome> = {}): JobEnded {
  const status = errorCode === "CANCELED" ? "canceled" : "failed";
  const noTime = { timings: { fetchMs: 0, runMs: 0, storeMs: 0 }, finishedAt: new Date().toISOString() };
  return new JobEnded({
    status,
    exitCode: null,
    runtimeMs: 0,
    errorCode,
    errorMessage,
    stdout: "",
    stderrTail: "",
    outputs: [],
    ...noTime,
    ...extra,
  });
}
