import type { Services } from "../../services.ts";
import { RunnerBusy } from "../../runner/runner-client.ts";
import { containerStartStatement } from "../../metrics/metric-store.ts";
import { getJob, jobSpecOf, setQueuedReason } from "../store/job-store.ts";
import { CHAIN_CHECK_MS, chainState, waitsOnJobs } from "../request/chained-inputs.ts";
import { claimForDispatch, unclaimDispatch, whyNotClaimed } from "../transitions/claim-for-dispatch.ts";
import { endJob } from "./end-job.ts";
import { failedEnding, rejectedEnding } from "./job-endings.ts";
import { CAPACITY_RETRY_MS } from "./retry-policy.ts";
import { loseAttempt } from "./lose-attempt.ts";
import type { NextTick } from "./tick-state.ts";
import { buildRunnerRequest } from "../runner-request/runner-request.ts";
import { markStarted } from "../transitions/mark-started.ts";
import type { JobRow } from "../store/job-row.ts";

/**
 * Hands a queued job to its runner as its next attempt. The claim (a guarded statement that also
 * enforces the account's limits) makes a duplicate tick change nothing; the job stays queued until
 * the runner reports that its binary got a slot.
 */
export async function dispatchJob(s: Services, job: JobRow): Promise<NextTick> {
  const jobId = job.id;
  const waits = await waitForOtherJobs(s, job);
  if (waits) return waits;
  const limits = { maxActive: s.config.maxActiveJobsPerAccount, creditsPerSecond: s.config.creditsPerSecond };
  const now = s.now().toISOString();
  if (!(await claimForDispatch(s.db, jobId, now, limits))) return notClaimed(s, (await getJob(s.db, jobId)) ?? job);
  // What the claim wrote, without reading it back.
  const claimed: JobRow = { ...job, attempts: job.attempts + 1, dispatched_at: now };
  // A split encode runs from its claim: its coordinator plans it and hands out its tasks.
  if (jobSpecOf(job).parallel) {
    if (await markStarted(s.db, jobId, now, now)) s.onStatus?.("running");
    return { state: { jobId, phase: "split", misses: 0 }, delayMs: 0 };
  }
  const request = await buildRunnerRequest(s, claimed);
  try {
    const { containerStart } = await s.runner.start(request);
    if (containerStart) await containerStartStatement(s.db, jobId, containerStart).run();
    return { state: { jobId, phase: "watch", misses: 0 }, delayMs: s.config.runnerPollIntervalMs };
  } catch (err) {
    if (err instanceof RunnerBusy) {
      await unclaimDispatch(s.db, jobId, claimed.attempts, s.now().toISOString());
      return { state: { jobId, phase: "dispatch", misses: 0 }, delayMs: CAPACITY_RETRY_MS };
    }
    console.error(`job ${jobId}: hand-over to the runner failed (attempt ${claimed.attempts})`, err);
    return loseAttempt(s, claimed, "RUNNER_UNAVAILABLE", "No runner could be reached to run the job");
  }
}

/**
 * A job that reads other jobs' outputs (or names them in `dependsOn`) waits, queued with its reason,
 * until they have completed (checked every CHAIN_CHECK_MS), and fails with INPUT_JOB_FAILED
 * (DEPENDENCY_FAILED) as soon as one never will.
 */
async function waitForOtherJobs(s: Services, job: JobRow): Promise<NextTick | null> {
  const spec = jobSpecOf(job);
  if (!waitsOnJobs(spec)) return null;
  const chain = await chainState(s.db, job, spec);
  if (chain.kind === "failed") {
    await endJob(s, job.id, failedEnding(chain.code, chain.message));
    return { done: true };
  }
  const reason = chain.kind === "waiting" ? chain.reason : null;
  if ((job.queued_reason ?? null) !== reason) await setQueuedReason(s.db, job.id, reason);
  return chain.kind === "waiting"
    ? { state: { jobId: job.id, phase: "dispatch", misses: 0 }, delayMs: CHAIN_CHECK_MS }
    : null;
}

async function notClaimed(s: Services, job: JobRow): Promise<NextTick> {
  switch (await whyNotClaimed(s.db, job, s.config.maxActiveJobsPerAccount)) {
    case "gone":
      return job.status === "running"
        ? { state: { jobId: job.id, phase: "watch", misses: 0 }, delayMs: 0 }
        : { done: true };
    case "already-dispatched":
      return { state: { jobId: job.id, phase: "watch", misses: 0 }, delayMs: 0 };
    case "no-credits":
      await endJob(s, job.id, rejectedEnding("INSUFFICIENT_CREDITS", "The account's credit balance is exhausted"));
      return { done: true };
    case "too-many-active":
      await endJob(
        s,
        job.id,
        rejectedEnding(
          "TOO_MANY_ACTIVE_JOBS",
          `The account already has ${s.config.maxActiveJobsPerAccount} jobs queued or running`,
        ),
      );
      return { done: true };
    case "credits-reserved":
      return { state: { jobId: job.id, phase: "dispatch", misses: 0 }, delayMs: CAPACITY_RETRY_MS };
  }
}
