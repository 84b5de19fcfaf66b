import type { Services } from "../../services.ts";
import { RunnerBusy, RunnerUnreachable } from "../../runner/runner-client.ts";
import type { RunnerJobStatus } from "../../runner/runner-protocol.ts";
import { endJob, endJobFromRunner } from "./end-job.ts";
import { billableSeconds, failedEnding } from "./job-endings.ts";
import { getJob, jobSpecOf, PROGRESS_SAVE_INTERVAL_MS, saveProgress } from "../store/job-store.ts";
import { jobTimeoutMs, timedOutMessage } from "../request/job-request.ts";
import { DEADLINE_GRACE_MS, OUTPUT_STORE_ALLOWANCE_MS, RUNNER_LOST_AFTER_MISSES } from "./retry-policy.ts";
import { discardUnrecordedOutputs } from "./discard-outputs.ts";
import { loseAttempt } from "./lose-attempt.ts";
import type { TickState, NextTick } from "./tick-state.ts";
import { markStarted } from "../transitions/mark-started.ts";
import type { JobRow } from "../store/job-row.ts";

/**
 * One watch tick for a job with a runner: collect the final report, or note that the binary got its
 * slot (queued → running) and its progress, or stop it at its deadline, or count a miss and lose the
 * attempt after too many. Every ending is a guarded update, so a tick racing a cancel changes nothing.
 */
export async function watchJob(
  s: Services,
  job: JobRow,
  state: TickState,
  asked: Promise<RunnerJobStatus | null> = askRunner(s, job.id),
): Promise<NextTick> {
  const now = s.now();
  const next = (misses: number): NextTick => ({ state: { ...state, misses }, delayMs: s.config.runnerPollIntervalMs });
  const timeoutMs = jobTimeoutMs(jobSpecOf(job), s.config.jobTimeoutMs);
  const deadline =
    job.status === "running" ? Date.parse(job.started_at!) + timeoutMs + DEADLINE_GRACE_MS : Number.POSITIVE_INFINITY;
  const status = await asked;
  // The time limit bounds the run; a runner already storing the outputs of a finished run gets a
  // bounded while longer, and a report it has ready is taken, late or not.
  const storing = status?.state === "uploading" && now.getTime() <= deadline + OUTPUT_STORE_ALLOWANCE_MS;
  if (now.getTime() > deadline && !status?.outcome && !storing) {
    const report = await s.runner.cancel(job.id).catch(() => null);
    // Charged for what the runner says the binary ran; with no report, nothing proves it ran.
    const seconds = billableSeconds(report?.outcome?.runtimeMs ?? 0);
    await endJob(
      s,
      job.id,
      failedEnding("JOB_TIMEOUT", timedOutMessage(timeoutMs), seconds, s.config.creditsPerSecond),
    );
    await s.runner.release(job.id);
    await discardUnrecordedOutputs(s, job.id);
    return { done: true };
  }
  if (!status) {
    if (state.misses + 1 < RUNNER_LOST_AFTER_MISSES) return next(state.misses + 1);
    return loseAttempt(
      s,
      job,
      "RUNNER_LOST",
      "The runner stopped answering about this job (restarted, evicted or unreachable)",
    );
  }
  const current = await noteStart(s, job, status);
  if (status.outcome?.errorCode === "RUNNER_LOST") {
    // The runner gave the run up (its lease on it ran out): drop it there, so the next hand-over
    // starts afresh, and count the attempt lost.
    await s.runner.release(job.id);
    return loseAttempt(s, current, "RUNNER_LOST", status.outcome.errorMessage ?? "The runner gave the job up");
  }
  if (status.outcome) {
    await endJobFromRunner(s, current, status.outcome);
    await s.runner.release(job.id);
    await discardUnrecordedOutputs(s, job.id);
    return { done: true };
  }
  if (status.progress && current.status === "running") {
    // The coordinator serves the latest progress; D1 gets it only every PROGRESS_SAVE_INTERVAL_MS.
    s.onProgress?.(status.progress, now.toISOString());
    if (state.progressSavedAtMs === undefined || now.getTime() - state.progressSavedAtMs >= PROGRESS_SAVE_INTERVAL_MS) {
      await saveProgress(s.db, job.id, status.progress, now.toISOString());
      return {
        state: { ...state, misses: 0, progressSavedAtMs: now.getTime() },
        delayMs: s.config.runnerPollIntervalMs,
      };
    }
  }
  return next(0);
}

/** What the runner says of the job; null when it cannot answer now (unreachable, or too busy to): a missed poll. */
export function askRunner(s: Services, jobId: string): Promise<RunnerJobStatus | null> {
  return s.runner.status(jobId).catch((err) => {
    if (err instanceof RunnerUnreachable || err instanceof RunnerBusy) return null;
    throw err;
  });
}

/** A binary that got its slot makes its job running, from the moment the runner gave it the slot. */
async function noteStart(s: Services, job: JobRow, status: RunnerJobStatus): Promise<JobRow> {
  if (job.status !== "queued" || status.state === "waiting") return job;
  const startedAt = status.startedAt ?? s.now().toISOString();
  const now = s.now().toISOString();
  // What the guarded write made of the row, without reading it back; read only when it moved nothing.
  const current = (await markStarted(s.db, job.id, startedAt, now))
    ? { ...job, status: "running" as const, started_at: startedAt, updated_at: now }
    : ((await getJob(s.db, job.id)) ?? job);
  s.onStatus?.(current.status);
  return current;
}
