import { JOB_TRANSITIONS, statusGuard } from "./job-states.ts";

/**
 * requeue: attempt `attempts` was lost, so the job goes back in line (queued, with no runner), its
 * progress and start cleared. Guarded by the attempt number, so a late report of an older attempt
 * changes nothing.
 */
export async function requeueLostAttempt(db: D1Database, id: string, attempts: number, now: string): Promise<boolean> {
  const r = await db
    .prepare(
      `UPDATE jobs SET status = '${JOB_TRANSITIONS.requeue.to}', dispatched_at = NULL, started_at = NULL, progress_json = NULL, updated_at = ?3
       WHERE id = ?1 AND ${statusGuard("requeue")} AND attempts = ?2`,
    )
    .bind(id, attempts, now)
    .run();
  return r.meta.changes === 1;
}
