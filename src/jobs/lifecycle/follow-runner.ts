import type { RunnerClient } from "../../runner/runner-client.ts";
import { followReached, type RunnerFollow, type RunnerJobStatus } from "../../runner/runner-protocol.ts";

/**
 * How long after its hand-over a coordinator follows its job on the runner with held status calls:
 * a held call keeps the Durable Object in memory (billed by the second), so only a job's first minute,
 * where the hop through the Worker and the ask after a notification weigh on a small job's time; later
 * changes come by notification and poll, as before.
 */
export const FOLLOW_WINDOW_MS = 60_000;

/**
 * One held status call (RunnerFollow): the status once the job reached `until` (the coordinator ticks
 * with it in hand, no notification and no second ask), "again" when the wait ran out first, or null to
 * stop following: the runner does not know the job, the call failed, or the runner answered at once
 * without holding it (a double, or a runner older than held calls: following it would spin).
 */
export async function followRunner(
  runner: Pick<RunnerClient, "status"> & { follows?: true },
  jobId: string,
  follow: RunnerFollow,
  now: () => number = Date.now,
): Promise<RunnerJobStatus | "again" | null> {
  if (!runner.follows) return null;
  const askedAt = now();
  const status = await runner.status(jobId, follow).catch(() => null);
  if (!status) return null;
  if (followReached(status, follow.until)) return status;
  return now() - askedAt >= follow.waitMs / 2 ? "again" : null;
}
