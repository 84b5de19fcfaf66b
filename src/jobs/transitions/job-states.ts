/**
 * The job lifecycle: every status a job has, and every status change it can make. Each change is one
 * guarded statement in this folder (one file per transition), whose WHERE clause is built from this
 * table, so a late tick, a duplicate message or a racing cancel changes nothing.
 * test/unit/job-status-writes.test.ts fails if a job's status is written anywhere else.
 */
export const JOB_STATUSES = ["queued", "running", "completed", "failed", "canceled", "rejected"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const TERMINAL_STATUSES: readonly JobStatus[] = ["completed", "failed", "canceled", "rejected"];

/** What a new job starts as (insert-job.ts). */
export const INITIAL_STATUS: JobStatus = "queued";

export const JOB_TRANSITIONS = {
  /** The binary got its runner slot (a split job: its claim); the deadline runs from here. */
  start: { from: ["queued"], to: "running" },
  /**
   * The runner attempt was lost to an infrastructure fault: back in line for another. From queued
   * too: a job handed to a runner whose binary never got its slot stays queued but loses its runner.
   */
  requeue: { from: ["queued", "running"], to: "queued" },
  complete: { from: ["running"], to: "completed" },
  /** From queued: no runner took it in RUNNER_ATTEMPTS attempts, or a job it reads from failed. */
  fail: { from: ["queued", "running"], to: "failed" },
  cancel: { from: ["queued", "running"], to: "canceled" },
  /** Refused before it ran: the account's limits or credits. */
  reject: { from: ["queued"], to: "rejected" },
} as const satisfies Record<string, { from: readonly JobStatus[]; to: JobStatus }>;
export type JobTransition = keyof typeof JOB_TRANSITIONS;

/** The transition that ends a job in each terminal status. */
export const ENDING_TRANSITIONS = {
  completed: "complete",
  failed: "fail",
  canceled: "cancel",
  rejected: "reject",
} as const;

export function isTerminal(status: JobStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/** Whether some transition moves a job from `from` to a different status `to`. */
export function canTransition(from: JobStatus, to: JobStatus): boolean {
  return (
    from !== to &&
    Object.values(JOB_TRANSITIONS).some((t) => t.to === to && (t.from as readonly JobStatus[]).includes(from))
  );
}

/** The SQL condition a transition's UPDATE is guarded by: the job is in one of its source statuses. */
export function statusGuard(transition: JobTransition): string {
  return `status IN (${JOB_TRANSITIONS[transition].from.map((s) => `'${s}'`).join(", ")})`;
}
