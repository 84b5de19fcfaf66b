import type { JobErrorCode } from "../../api/error-codes.ts";
import type { RunnerOutcome } from "../../runner/runner-protocol.ts";
import type { JobFinish } from "../store/job-store.ts";

/** Whole seconds the binary ran, rounded up: a job that ran at all is billed at least one second. */
export function billableSeconds(runtimeMs: number): number {
  return runtimeMs > 0 ? Math.ceil(runtimeMs / 1000) : 0;
}

export function finishFromOutcome(outcome: RunnerOutcome, creditsPerSecond: number): JobFinish {
  const runtimeSeconds = billableSeconds(outcome.runtimeMs);
  return {
    status: outcome.status,
    exitCode: outcome.exitCode,
    runtimeSeconds,
    creditsCharged: runtimeSeconds * creditsPerSecond,
    errorCode: outcome.errorCode,
    errorMessage: outcome.errorMessage,
    // Cut to their bytes where the row is written (finishJob, src/jobs/store/row-budget.ts).
    stdout: outcome.stdout,
    stderrTail: outcome.stderrTail,
    failedStep: outcome.failedStep ?? null,
    plannedArgs: outcome.plannedArgs ?? null,
    inputReads: outcome.inputReads ?? null,
  };
}

export function failure(errorCode: JobErrorCode, errorMessage: string, runtimeSeconds = 0, creditsPerSecond = 0): JobFinish {
  return {
    status: "failed", exitCode: null, runtimeSeconds, creditsCharged: runtimeSeconds * creditsPerSecond, errorCode,
    errorMessage, stdout: null, stderrTail: null,
  };
}

/** A job refused before it ran: never charged. */
export function rejection(errorCode: JobErrorCode, errorMessage: string): JobFinish {
  return { status: "rejected", exitCode: null, runtimeSeconds: 0, creditsCharged: 0, errorCode, errorMessage, stdout: null, stderrTail: null };
}
