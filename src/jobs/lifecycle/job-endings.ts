import type { JobErrorCode } from "../../api/error-codes.ts";
import type { RunnerOutcome } from "../../runner/runner-protocol.ts";
import type { JobTimings } from "../views/job-timings.ts";
import type { CheckResult } from "../checks/output-checks.ts";
import type { PlanReport } from "../../presets/recipes/recipe.ts";

/**
 * How a job ends: every ending is one of these values, made by the constructors below, and written by
 * endJob (end-job.ts), the one way a job reaches a terminal status.
 */
export type JobEnding = {
  status: "completed" | "failed" | "canceled" | "rejected";
  exitCode: number | null;
  runtimeSeconds: number;
  creditsCharged: number;
  errorCode: JobErrorCode | null;
  errorMessage: string | null;
  stdout: string | null;
  stderrTail: string | null;
  timings?: JobTimings | null;
  failedStep?: number | null;
  /** Preset jobs: what the runner planned from the inputs and ran. */
  plannedArgs?: string[] | null;
  /** Bytes per input read by the job's commands and fetched from the origin. */
  inputReads?: RunnerOutcome["inputReads"] | null;
  /** Each output's check results (src/jobs/checks/), failed job or completed. */
  checks?: Record<string, CheckResult[]> | null;
  /** Preset jobs: what the preset measured of the inputs and decided as it planned. */
  presetReport?: PlanReport | null;
};

/** Whole seconds the binary ran, rounded up: a job that ran at all is billed at least one second. */
export function billableSeconds(runtimeMs: number): number {
  return runtimeMs > 0 ? Math.ceil(runtimeMs / 1000) : 0;
}

/** The ending a runner reported (completed, failed, or canceled with what ran), charged for its seconds. */
export function endingFromRunner(outcome: RunnerOutcome, creditsPerSecond: number): JobEnding {
  const runtimeSeconds = billableSeconds(outcome.runtimeMs);
  return {
    status: outcome.status,
    exitCode: outcome.exitCode,
    runtimeSeconds,
    creditsCharged: runtimeSeconds * creditsPerSecond,
    errorCode: outcome.errorCode,
    errorMessage: outcome.errorMessage,
    // Cut to their bytes where the row is written (writeEnding, src/jobs/store/row-budget.ts).
    stdout: outcome.stdout,
    stderrTail: outcome.stderrTail,
    failedStep: outcome.failedStep ?? null,
    plannedArgs: outcome.plannedArgs ?? null,
    inputReads: outcome.inputReads ?? null,
    checks: checksOf(outcome),
    presetReport: outcome.presetReport ?? null,
  };
}

/** The outputs' check results as reported: a job failed by its checks lists them all; a completed one, with its outputs. */
function checksOf(outcome: RunnerOutcome): Record<string, CheckResult[]> | null {
  if (outcome.checks) return outcome.checks;
  const checked = outcome.outputs.filter((o) => o.checks?.length);
  return checked.length ? Object.fromEntries(checked.map((o) => [o.name, o.checks!])) : null;
}

/** A job that failed apart from its binary's own exit (a timeout, lost runners, a failed dependency). */
export function failedEnding(
  errorCode: JobErrorCode,
  errorMessage: string,
  runtimeSeconds = 0,
  creditsPerSecond = 0,
): JobEnding {
  return {
    status: "failed",
    exitCode: null,
    runtimeSeconds,
    creditsCharged: runtimeSeconds * creditsPerSecond,
    errorCode,
    errorMessage,
    stdout: null,
    stderrTail: null,
  };
}

/** A job refused before it ran: never charged. */
export function rejectedEnding(errorCode: JobErrorCode, errorMessage: string): JobEnding {
  return {
    status: "rejected",
    exitCode: null,
    runtimeSeconds: 0,
    creditsCharged: 0,
    errorCode,
    errorMessage,
    stdout: null,
    stderrTail: null,
  };
}

/** A canceled job, charged for what its binary ran before it was stopped (nothing, if it had not started). */
export function canceledEnding(runtimeSeconds = 0, creditsPerSecond = 0): JobEnding {
  return {
    status: "canceled",
    exitCode: null,
    runtimeSeconds,
    creditsCharged: runtimeSeconds * creditsPerSecond,
    errorCode: "CANCELED",
    errorMessage: "The job was canceled",
    stdout: null,
    stderrTail: null,
  };
}
