/** The body of a message on the jobs queue: just the id; the job itself lives in D1. */
export type JobMessage = { jobId: string };

/** Retry delay for a message whose hand-off failed: 2, 4, 8... seconds, capped at a minute. */
export function dispatchRetryDelaySeconds(attempts: number): number {
  return Math.min(60, 2 ** Math.max(1, attempts));
}
