import { JOB_TRANSITIONS, statusGuard } from "./job-states.ts";

/**
 * start: a job handed to a runner becomes running when its binary got its slot, at `startedAt` (the
 * deadline runs from there); a split job when it is claimed. False if it was not handed over or
 * already moved on.
 */
export async function markStarted(db: D1Database, id: string, startedAt: string, now: string): Promise<boolean> {
  const r = await db
    .prepare(
      `UPDATE jobs SET status = '${JOB_TRANSITIONS.start.to}', started_at = ?2, updated_at = ?3
       WHERE id = ?1 AND ${statusGuard("start")} AND dispatched_at IS NOT NULL`,
    )
    .bind(id, startedAt, now)
    .run();
  return r.meta.changes === 1;
}
