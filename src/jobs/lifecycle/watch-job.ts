import type { Services } from "../../services.ts";
import { RunnerBusy, RunnerUnreachable } from "../../runner/runner-client.ts";
import type { RunnerJobStatus } from "../../runner/runner-protocol.ts";
import { applyOutcome } from "./end-job-from-runner.ts";
import { billableSeconds, failure } from "./job-endings.ts";
import { getJob, jobSpecOf, PROGRESS_SAVE_INTERVAL_MS, saveProgress, type JobRow } from "../store/job-store.ts";
import { jobTimeoutMs, timedOutMessage } from "../request/job-request.ts";
import { markStarted } from "../transitions/claim-for-dispatch.ts";
import { canceledFinish, endJob } from "./end-job.ts";
import { DEADLINE_GRACE_MS, OUTPUT_STORE_ALLOWANCE_MS, RUNNER_LOST_AFTER_MISSES } from "./retry-policy.ts";
import { discardUnrecordedOutputs } from "./discard-outputs.ts";
import { cancelSplitJob } from "../split/end-split-job.ts";
import { loseAttempt } from "./lose-attempt.ts";
import type { DriveState, DriveStep } from "./tick-state.ts";

/**
 * One watch tick for a job with a runner: collect the final report, or note that the binary got its
 * slot (queued → running) and its progress, or stop it at its deadline, or count a miss and lose the
 * attempt after too many. Every ending is a guarded update, so a tick racing a cancel changes nothing.
 */
export async function watchJob(s: Services, job: JobRow, state: DriveState): Promise<DriveStep> {
  const now = s.now();
  const next = (misses: number): DriveStep => ({ state: { ...state, misses }, delayMs: s.config.runnerPollIntervalMs });
  const timeoutMs = jobTimeoutMs(jobSpecOf(job), s.config.jobTimeoutMs);
  const deadline = job.status === "running" ? Date.parse(job.started_at!) + timeoutMs + DEADLINE_GRACE_MS : Number.POSITIVE_INFINITY;
  const status = await s.runner.status(job.id).catch((err) => {
    // A runner that cannot answer now (unreachable, or too busy to) counts as a missed poll.
    if (err instanceof RunnerUnreachable || err instanceof RunnerBusy) return null;
    throw err;
  });
  // The time limit bounds the run; a runner already storing the outputs of a finished run gets a
  // bounded while longer, and a report it has ready is taken, late or not.
  const storing = status?.state === "uploading" && now.getTime() <= deadline + OUTPUT_STORE_ALLOWANCE_MS;
  if (now.getTime() > deadline && !status?.outcome && !storing) {
    const report = await s.runner.cancel(job.id).catch(() => null);
    // Charged for what the runner says the binary ran; with no report, nothing proves it ran.
    const seconds = billableSeconds(report?.outcome?.runtimeMs ?? 0);
    await endJob(s, job.id, failure("JOB_TIMEOUT", timedOutMessage(timeoutMs), seconds, s.config.creditsPerSecond));
    await s.runner.release(job.id);
    await discardUnrecordedOutputs(s, job.id);
    return { done: true };
  }
  if (!status) {
    if (state.misses + 1 < RUNNER_LOST_AFTER_MISSES) return next(state.misses + 1);
    return loseAttempt(s, job, "RUNNER_LOST", "The runner stopped answering about this job (restarted, evicted or unreachable)");
  }
  const current = await noteStart(s, job, status);
  if (status.outcome?.errorCode === "RUNNER_LOST") {
    // The runner gave the run up (its lease on it ran out): drop it there, so the next hand-over
    // starts afresh, and count the attempt lost.
    await s.runner.release(job.id);
    return loseAttempt(s, current, "RUNNER_LOST", status.outcome.errorMessage ?? "The runner gave the job up");
  }
  if (status.outcome) {
    await applyOutcome(s, current, status.outcome);
    await s.runner.release(job.id);
    await discardUnrecordedOutputs(s, job.id);
    return { done: true };
  }
  if (status.progress && current.status === "running") {
    // The coordinator serves the latest progress; D1 gets it only every PROGRESS_SAVE_INTERVAL_MS.
    s.onProgress?.(status.progress, now.toISOString());
    if (state.progressSavedAtMs === undefined || now.getTime() - state.progressSavedAtMs >= PROGRESS_SAVE_INTERVAL_MS) {
      await saveProgress(s.db, job.id, status.progress, now.toISOString());
      return { state: { ...state, misses: 0, progressSavedAtMs: now.getTime() }, delayMs: s.config.runnerPollIntervalMs };
    }
  }
  return next(0);
}

/** A binary that got its slot makes its job running, from the moment the runner gave it the slot. */
async function noteStart(s: Services, job: JobRow, status: RunnerJobStatus): Promise<JobRow> {
  if (job.status !== "queued" || status.state === "waiting") return job;
  await markStarted(s.db, job.id, status.startedAt ?? s.now().toISOString(), s.now().toISOString());
  const current = (await getJob(s.db, job.id)) ?? job;
  s.onStatus?.(current.status);
  return current;
}

/**
 * Cancels a job that has not finished: a queued one at once (its runner, if it has one, drops it),
 * a running one through its runner, which kills the process and reports how long it ran. Returns
 * false when the job had already finished.
 */
export async function cancelJob(s: Services, jobId: string): Promise<boolean> {
  const job = await getJob(s.db, jobId);
  if (!job || job.status === "queued") {
    const canceled = job ? await endJob(s, jobId, canceledFinish()) : false;
    await s.runner.release(jobId);
    return canceled;
  }
  if (job.status !== "running") {
    await s.runner.release(jobId);
    return false;
  }
  if (jobSpecOf(job).parallel) return cancelSplitJob(s, job);
  const report = await s.runner.cancel(jobId).catch(() => null);
  const finished = report?.outcome
    ? (await applyOutcome(s, job, report.outcome)) && report.outcome.status === "canceled"
    : // No report (runner gone or still tearing down): cancel without a charge; nothing proves it ran.
      await endJob(s, jobId, canceledFinish());
  await s.runner.release(jobId);
  await discardUnrecordedOutputs(s, jobId);
  return finished;
}
