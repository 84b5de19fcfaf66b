import type { JobStatus } from "../transitions/job-states.ts";

/**
 * What a job's coordinator knows of the job between D1 writes: its status as the last tick read or
 * left it, and a running job's latest progress as its runner reported it (D1 gets progress only every
 * PROGRESS_SAVE_INTERVAL_MS). Kept in the coordinator's memory: a fresh instance knows nothing until
 * its first tick, and readers then fall back to D1.
 */
export type JobSnapshot = { status: JobStatus; progress: { progress: unknown; at: string } | null };

/** What a waiting event stream learns at a tick: whether it was woken, whether the job ended, the snapshot. */
export type TickNews = { woken: boolean; ended: boolean; snapshot: JobSnapshot | null };

/** The snapshot after a tick read or changed the job's status: progress belongs to one running spell. */
export function withStatus(snapshot: JobSnapshot | null, status: JobStatus): JobSnapshot {
  return { status, progress: status === "running" && snapshot?.status === "running" ? snapshot.progress : null };
}

/** The snapshot after the runner reported progress: the job is running (only a running job has any). */
export function withProgress(progress: unknown, at: string): JobSnapshot {
  return { status: "running", progress: { progress, at } };
}
