import type { TickState } from "./tick-state.ts";

/**
 * Infrastructure faults (a runner that cannot be reached, forgets a job, or dies with it) cost the
 * job an attempt, not the job itself: it goes back in line after a delay and is handed over again,
 * up to RUNNER_ATTEMPTS times in all; only then does it fail with the fault's code. A failure of
 * the user's own command is never retried. Lost attempts are not charged.
 */
export const RUNNER_ATTEMPTS = 3;
/** Delay before attempt 2, 3, …: a restarting runner or a replaced container needs a moment. */
export const ATTEMPT_RETRY_DELAYS_MS = [2_000, 10_000];
/** No runner slot free, or the account's credits all reserved by its running jobs: ask again this often. */
export const CAPACITY_RETRY_MS = 5_000;
/** An unexpected error in a coordinator tick: try the tick again this much later. */
export const TICK_ERROR_RETRY_MS = 5_000;
/** Consecutive status polls a runner may miss (unreachable, or not knowing the job) before the attempt is lost. */
export const RUNNER_LOST_AFTER_MISSES = 10;
/** Slack past the deadline for the runner's own timeout to report first. */
export const DEADLINE_GRACE_MS = 15_000;
/**
 * After its deadline, a job whose runner is storing the outputs of a run that finished in time may
 * go on storing this much longer (the runner's upload timeout per file to the service's own storage
 * is 30 minutes); then it is stopped like any overdue job. Sends to a client's own storage (an
 * output's destination) do not use it: the runner ends them by the job's deadline itself, billed
 * (container/src/transfer-watch.ts), since the client decides how slow that storage is.
 */
export const OUTPUT_STORE_ALLOWANCE_MS = 30 * 60_000;

/**
 * A watching coordinator's alarm is the safety net for notifications that never come. A runner heard
 * within the last poll interval is expected to speak again (progress, at most once a second, the
 * default poll interval too): the alarm then waits half an interval longer, so it does not fire just
 * ahead of that notification and make two ticks, two runner calls and two D1 reads of one second.
 * A runner gone quiet is polled that much later once; while it is quiet, at the usual pace.
 */
export function alarmDelayMs(step: { state: TickState; delayMs: number }, msSinceRunnerSpoke: number): number {
  const { delayMs } = step;
  return step.state.phase === "watch" && msSinceRunnerSpoke <= delayMs ? Math.round(delayMs * 1.5) : delayMs;
}

export function attemptRetryDelayMs(attemptsSoFar: number): number {
  return ATTEMPT_RETRY_DELAYS_MS[Math.min(attemptsSoFar, ATTEMPT_RETRY_DELAYS_MS.length) - 1] ?? 0;
}

/**
 * How long a runner keeps a job its coordinator stopped asking about (its lease): well past the
 * longest retry delay and a few missed polls, so only a coordinator that is really gone loses it.
 */
export function runnerLeaseMs(pollIntervalMs: number): number {
  return Math.max(60_000, RUNNER_LOST_AFTER_MISSES * pollIntervalMs * 3);
}

/** Retry delay for a jobs-queue message whose hand-off to its coordinator failed: 2, 4, 8... seconds, capped at a minute. */
export function dispatchRetryDelaySeconds(attempts: number): number {
  return Math.min(60, 2 ** Math.max(1, attempts));
}
