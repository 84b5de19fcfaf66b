import type { JobErrorCode } from "../api/error-codes.ts";
import type { RunnerOutcome } from "../runner/runner-protocol.ts";
import type { Services } from "../services.ts";
import { objectKeys } from "../storage/presigner.ts";
import { MAX_STDERR_TAIL_BYTES, MAX_STDOUT_BYTES } from "./limits.ts";
import { jobSpecOf, type JobFinish, type JobRow } from "./job-store.ts";
import { endJob } from "./end-job.ts";
import { recordOutputs } from "./output-store.ts";

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
    stdout: outcome.stdout.slice(0, MAX_STDOUT_BYTES),
    stderrTail: outcome.stderrTail.slice(-MAX_STDERR_TAIL_BYTES),
  };
}

/** Stores a finished job's outputs (when it completed) and moves it to its terminal state. */
export async function applyOutcome(s: Services, job: JobRow, outcome: RunnerOutcome): Promise<boolean> {
  const now = s.now().toISOString();
  if (outcome.status === "completed") {
    const spec = jobSpecOf(job);
    await recordOutputs(
      s.db,
      { id: job.id, accountId: job.account_id },
      outcome.outputs.map((o) => {
        const decl = spec.outputs[o.name];
        return {
          label: o.name,
          fileName: decl.fileName,
          contentType: decl.contentType,
          objectKey: objectKeys.output(job.id, o.name, decl.fileName),
          size: o.size,
          metadata: o.metadata,
        };
      }),
      now,
    );
  }
  return endJob(s, job.id, finishFromOutcome(outcome, s.config.creditsPerSecond));
}

export function failure(errorCode: JobErrorCode, errorMessage: string, runtimeSeconds = 0, creditsPerSecond = 0): JobFinish {
  return {
    status: "failed", exitCode: null, runtimeSeconds, creditsCharged: runtimeSeconds * creditsPerSecond, errorCode,
    errorMessage, stdout: null, stderrTail: null,
  };
}
