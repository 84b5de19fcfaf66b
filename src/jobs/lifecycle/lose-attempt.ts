import type { Services } from "../../services.ts";
import type { JobErrorCode } from "../../api/error-codes.ts";
import { endJob } from "./end-job.ts";
import { failedEnding } from "./job-endings.ts";
import { RUNNER_ATTEMPTS, attemptRetryDelayMs } from "./retry-policy.ts";
import type { NextTick } from "./tick-state.ts";
import { requeueLostAttempt } from "../transitions/requeue-lost-attempt.ts";
import type { JobRow } from "../store/job-row.ts";

/**
 * The runner attempt was lost to an infrastructure fault (`code`): the job goes back in line for
 * another attempt after a delay, or, after the last one, fails with that code. The runner is not
 * told to drop the job: if it still has it (it was only slow), the next hand-over finds it there,
 * so the job never runs twice.
 */
export async function loseAttempt(s: Services, job: JobRow, code: JobErrorCode, message: string): Promise<NextTick> {
  if (job.attempts < RUNNER_ATTEMPTS) {
    if (await requeueLostAttempt(s.db, job.id, job.attempts, s.now().toISOString())) s.onStatus?.("queued");
    console.warn(`job ${job.id}: attempt ${job.attempts} lost (${code}); trying again`);
    return { state: { jobId: job.id, phase: "dispatch", misses: 0 }, delayMs: attemptRetryDelayMs(job.attempts) };
  }
  await endJob(s, job.id, failedEnding(code, `${message} (${job.attempts} attempts)`));
  await s.runner.release(job.id);
  return { done: true };
}
