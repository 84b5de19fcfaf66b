import type { Services } from "../services.ts";
import { RunnerUnreachable } from "../runner/runner-client.ts";
import { applyOutcome } from "./finish-from-outcome.ts";
import { billableSeconds, failure } from "./billing.ts";
import { getJob, saveProgress } from "./job-store.ts";
import { canceledFinish, endJob } from "./end-job.ts";

/** Consecutive polls the runner may miss (unreachable, or not knowing the job) before it is lost. */
export const RUNNER_LOST_AFTER_MISSES = 10;
/** Slack past the deadline for the runner's own timeout to report first. */
export const DEADLINE_GRACE_MS = 15_000;

export type WatchState = { misses: number };
export type WatchStep = { done: true } | { done: false; state: WatchState };

/**
 * One watchdog tick for a running job: collect the runner's final report, or record progress, or
 * end the job when its deadline passed or its runner is gone. Every ending is a guarded update, so
 * a tick that races a cancel or a duplicate tick changes nothing.
 */
export async function superviseJob(s: Services, jobId: string, state: WatchState): Promise<WatchStep> {
  const job = await getJob(s.db, jobId);
  if (!job || job.status !== "running") {
    await s.runner.release(jobId);
    return { done: true };
  }
  const now = s.now();
  const startedMs = Date.parse(job.started_at ?? job.created_at);
  if (now.getTime() > startedMs + s.config.jobTimeoutMs + DEADLINE_GRACE_MS) {
    const report = await s.runner.cancel(jobId).catch(() => null);
    // Charged for what the runner says the binary ran; with no report, nothing proves it ran.
    const seconds = billableSeconds(report?.outcome?.runtimeMs ?? 0);
    await endJob(s, jobId, failure("JOB_TIMEOUT", `The job ran past its ${Math.round(s.config.jobTimeoutMs / 1000)} s limit and was stopped`, seconds, s.config.creditsPerSecond));
    await s.runner.release(jobId);
    return { done: true };
  }
  let status;
  try {
    status = await s.runner.status(jobId);
  } catch (err) {
    if (!(err instanceof RunnerUnreachable)) throw err;
    status = null;
  }
  if (!status) {
    const misses = state.misses + 1;
    if (misses < RUNNER_LOST_AFTER_MISSES) return { done: false, state: { misses } };
    await endJob(s, jobId, failure("RUNNER_LOST", "The runner stopped answering about this job (restarted or evicted)"));
    await s.runner.release(jobId);
    return { done: true };
  }
  if (status.outcome) {
    await applyOutcome(s, job, status.outcome);
    await s.runner.release(jobId);
    return { done: true };
  }
  if (status.progress) await saveProgress(s.db, jobId, status.progress, now.toISOString());
  return { done: false, state: { misses: 0 } };
}

/**
 * Cancels a running job: the runner kills the process and reports how long it ran. Returns false
 * when the job was no longer running (it finished first).
 */
export async function cancelRunningJob(s: Services, jobId: string): Promise<boolean> {
  const job = await getJob(s.db, jobId);
  if (!job || job.status !== "running") return false;
  const report = await s.runner.cancel(jobId).catch(() => null);
  if (report?.outcome) {
    const applied = await applyOutcome(s, job, report.outcome);
    await s.runner.release(jobId);
    return applied && report.outcome.status === "canceled";
  }
  // No report (runner gone or still tearing down): cancel without a charge; nothing proves it ran.
  const finished = await endJob(s, jobId, canceledFinish());
  await s.runner.release(jobId);
  return finished;
}
