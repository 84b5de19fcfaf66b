import type { JobRow } from "../jobs/job-store.ts";
import { isTerminal } from "../jobs/job-states.ts";
import { MAX_WAIT_SECONDS } from "../jobs/limits.ts";
/** A wait is cut into slices: after each, D1 is read again, so a wake-up that never comes costs one slice. */
const WAIT_SLICE_MS = 15_000;
/** If the coordinator cannot be asked (restarting), look again after this long. */
const FALLBACK_SLEEP_MS = 500;

export type WaitDeps = {
  read: () => Promise<JobRow>;
  /** Resolves when the job's coordinator ends the job (or after `ms`); may reject. */
  wake: (ms: number) => Promise<unknown>;
  signal: AbortSignal;
};

/**
 * Holds a request until the job is terminal, `seconds` pass, or the client goes away; returns the
 * job as it is then. The coordinator wakes the waiter when it ends the job, so a wait costs a few
 * reads, not one per second.
 */
export async function waitForTerminal(deps: WaitDeps, seconds: number): Promise<JobRow> {
  const deadline = Date.now() + seconds * 1000;
  let job = await deps.read();
  while (!isTerminal(job.status) && !deps.signal.aborted) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    await deps.wake(Math.min(left, WAIT_SLICE_MS)).catch(() => new Promise((r) => setTimeout(r, Math.min(left, FALLBACK_SLEEP_MS))));
    job = await deps.read();
  }
  return job;
}

/** `wait=N` from a `Prefer` header (RFC 7240), capped; null when the client did not ask to wait. */
export function preferredWaitSeconds(prefer: string | undefined): number | null {
  const m = /(?:^|[,;\s])wait\s*=\s*(\d+)/i.exec(prefer ?? "");
  return m ? Math.min(Number(m[1]), MAX_WAIT_SECONDS) : null;
}
