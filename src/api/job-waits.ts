import { isTerminal } from "../jobs/transitions/job-states.ts";
import { MAX_WAIT_SECONDS } from "../jobs/request/limits.ts";
import type { JobRow } from "../jobs/store/job-row.ts";
import type { Parameter } from "./openapi-parameters.ts";

/** A wait is cut into slices, each one call to the coordinator (which holds it at most this long). */
const WAIT_SLICE_MS = 15_000;
/** If the coordinator cannot be asked (restarting), look again after this long. */
const FALLBACK_SLEEP_MS = 500;

export type WaitDeps<T extends { job: JobRow }> = {
  read: () => Promise<T>;
  /** What the caller already knows (a job it just created), instead of a first read. */
  known?: T;
  /** Resolves true when the job's coordinator ends the job, false after `ms` without that; may reject. */
  wake: (ms: number) => Promise<boolean>;
  signal: AbortSignal;
};

/**
 * Holds a request until the job is terminal, `seconds` pass, or the client goes away; returns the
 * job as it is then. Fed by the coordinator's push: it wakes the waiter when it ends the job (also
 * one ended by someone else: its next tick sees it), so D1 is read at the start, when woken, at the
 * end of the wait, and when the coordinator cannot be asked (then at most every FALLBACK_SLEEP_MS):
 * a few reads per wait, whatever its length, within one invocation's 1,000 queries.
 */
export async function waitForTerminal<T extends { job: JobRow }>(
  deps: WaitDeps<T>,
  seconds: number,
  now: () => number = Date.now,
): Promise<T> {
  const deadline = now() + seconds * 1000;
  let read = deps.known ?? (await deps.read());
  while (!isTerminal(read.job.status) && !deps.signal.aborted) {
    const left = deadline - now();
    if (left <= 0) break;
    const woken = await deps.wake(Math.min(left, WAIT_SLICE_MS)).catch(async () => {
      await new Promise((r) => setTimeout(r, Math.min(left, FALLBACK_SLEEP_MS)));
      return true;
    });
    // Not woken and time left: the job has not ended, D1 would say nothing new.
    if (!woken && deadline - now() > 0 && !deps.signal.aborted) continue;
    read = await deps.read();
  }
  return read;
}

/** The `Prefer` header as `POST /v1/jobs` documents it. */
export const PREFER_WAIT_HEADER: Parameter = {
  name: "Prefer",
  in: "header",
  schema: { type: "string", example: "wait=30" },
};

/** `wait=N` from a `Prefer` header (RFC 7240), capped; null when the client did not ask to wait. */
export function preferredWaitSeconds(prefer: string | undefined): number | null {
  const m = /(?:^|[,;\s])wait\s*=\s*(\d+)/i.exec(prefer ?? "");
  return m ? Math.min(Number(m[1]), MAX_WAIT_SECONDS) : null;
}
