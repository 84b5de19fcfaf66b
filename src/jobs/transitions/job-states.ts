/** The job lifecycle. Every status change in the store is a guarded update built from this table. */
export const JOB_STATUSES = ["queued", "running", "completed", "failed", "canceled", "rejected"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const TERMINAL_STATUSES: readonly JobStatus[] = ["completed", "failed", "canceled", "rejected"];

const ALLOWED_TRANSITIONS: Record<JobStatus, readonly JobStatus[]> = {
  // failed without running: no runner took it in RUNNER_ATTEMPTS attempts
  queued: ["running", "canceled", "rejected", "failed"],
  // back to queued: its runner attempt was lost to an infrastructure fault and it waits for another
  running: ["completed", "failed", "canceled", "queued"],
  completed: [],
  failed: [],
  canceled: [],
  rejected: [],
};

export function isTerminal(status: JobStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

export function canTransition(from: JobStatus, to: JobStatus): boolean {
  return ALLOWED_TRANSITIONS[from].includes(to);
}

/** The statuses a job may be in for a move to `to` to be legal: the guard of the UPDATE. */
export function sourcesOf(to: JobStatus): JobStatus[] {
  return JOB_STATUSES.filter((from) => canTransition(from, to));
}
