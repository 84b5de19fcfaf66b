import type { Services } from "../services.ts";
import type { JobErrorCode } from "../api/error-codes.ts";
import { getJob, jobSpecOf, type JobRow } from "./job-store.ts";
import { driveSplitJob } from "./split/drive-split-job.ts";
import { releaseTasks } from "./split/end-split-job.ts";
import { listTasks } from "./split/task-store.ts";
import { isTerminal } from "./job-states.ts";
import { requeueLostAttempt } from "./attempt-store.ts";
import { endJob } from "./end-job.ts";
import { failure } from "./billing.ts";
import { RUNNER_ATTEMPTS, attemptRetryDelayMs } from "./retry-policy.ts";
import { dispatchJob } from "./dispatch-job.ts";
import { watchJob } from "./supervise-job.ts";

/**
 * What a job's coordinator keeps between ticks: which job, and whether it is handing the job to a
 * runner ("dispatch") or watching the runner run it ("watch"). The job's status, attempts and
 * deadline live in D1; this is only where the coordinator is in its loop.
 */
export type DriveState = {
  jobId: string;
  /** "split": a split encode's tasks (src/jobs/split/), each on a runner of its own. */
  phase: "dispatch" | "watch" | "split";
  misses: number;
  /** Split jobs: consecutive polls each running task's runner missed, by runner id. */
  taskMisses?: Record<string, number>;
  /** When the running job's progress was last written to D1 (it is written at most every PROGRESS_SAVE_INTERVAL_MS). */
  progressSavedAtMs?: number;
};
/** After a tick: the job is terminal (nothing more to do), or the next tick runs in `delayMs`. */
export type DriveStep = { done: true } | { done?: false; state: DriveState; delayMs: number };

/** Where a coordinator picks a job up, from what D1 says (a fresh coordinator, or one re-armed by the sweeper). */
export function initialDriveState(job: JobRow): DriveState {
  const withRunner = job.status === "running" || job.dispatched_at !== null;
  const split = jobSpecOf(job).parallel !== undefined;
  return { jobId: job.id, phase: !withRunner ? "dispatch" : split ? "split" : "watch", misses: 0 };
}

/** One coordinator tick. Every branch ends the job or names the next tick: nothing waits unwatched. */
export async function driveJob(s: Services, state: DriveState): Promise<DriveStep> {
  const job = await getJob(s.db, state.jobId);
  if (job) s.onStatus?.(job.status);
  if (!job || isTerminal(job.status)) {
    await s.runner.release(state.jobId);
    // A split job's ending released its tasks and work files; again here, in case it was cut short.
    if (state.phase === "split") await releaseTasks(s, state.jobId, await listTasks(s.db, state.jobId));
    return { done: true };
  }
  if (state.phase === "split") return driveSplitJob(s, job, state);
  return state.phase === "dispatch" ? dispatchJob(s, job) : watchJob(s, job, state);
}

/**
 * The runner attempt was lost to an infrastructure fault (`code`): the job goes back in line for
 * another attempt after a delay, or, after the last one, fails with that code. The runner is not
 * told to drop the job: if it still has it (it was only slow), the next hand-over finds it there,
 * so the job never runs twice.
 */
export async function loseAttempt(s: Services, job: JobRow, code: JobErrorCode, message: string): Promise<DriveStep> {
  if (job.attempts < RUNNER_ATTEMPTS) {
    if (await requeueLostAttempt(s.db, job.id, job.attempts, s.now().toISOString())) s.onStatus?.("queued");
    console.warn(`job ${job.id}: attempt ${job.attempts} lost (${code}); trying again`);
    return { state: { jobId: job.id, phase: "dispatch", misses: 0 }, delayMs: attemptRetryDelayMs(job.attempts) };
  }
  await endJob(s, job.id, failure(code, `${message} (${job.attempts} attempts)`));
  await s.runner.release(job.id);
  return { done: true };
}
