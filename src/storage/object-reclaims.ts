import { deletePrefix } from "./delete-objects.ts";

/*
 * Bytes are deleted after the rows that pointed at them (a job or file delete, an expiry): the rows
 * go first, in one batch with a `object_reclaims` row naming the key prefix, so no record ever points
 * at missing bytes. The bytes then go at once; if that fails (the Worker stopped, storage refused),
 * the scheduled sweep deletes the prefix once `reclaim_at` has passed (migrations/0017).
 */

/** Prefixes the sweep reclaims per scheduled run: bounded work; the rest wait for the next run. */
export const RECLAIM_BATCH = 100;

/**
 * The statement that queues a prefix for reclaim at `at` (joins the batch that drops its rows). A
 * prefix queued twice keeps the later time: a deleted upload's URL may still write there until then.
 */
export function reclaimStatement(db: D1Database, prefix: string, at: string, guard?: RowGuard): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO object_reclaims (prefix, reclaim_at) SELECT ?1, ?2 WHERE ${guard?.sql ?? "1"}
       ON CONFLICT (prefix) DO UPDATE SET reclaim_at = max(reclaim_at, excluded.reclaim_at)`,
    )
    .bind(prefix, at, ...(guard?.params ?? []));
}

/** A condition the batch's statements share (parameters from ?3 on), e.g. "the job is finished". */
export type RowGuard = { sql: string; params: unknown[] };

/** D1 binds at most 100 parameters per statement. */
const MAX_BOUND_PARAMETERS = 100;

/**
 * Deletes the bytes under queued prefixes now, and forgets each one that is not due again later. A
 * failure is logged, not thrown: the rows are already gone, and the sweep will try again.
 */
export async function reclaimNow(db: D1Database, bucket: R2Bucket, prefixes: string[], now: string): Promise<void> {
  const done: string[] = [];
  for (const prefix of prefixes) {
    try {
      await deletePrefix(bucket, prefix);
      done.push(prefix);
    } catch (err) {
      console.error(`storage: the bytes under ${prefix} are left to the scheduled sweep`, err);
    }
  }
  for (let i = 0; i < done.length; i += MAX_BOUND_PARAMETERS - 1) {
    const chunk = done.slice(i, i + MAX_BOUND_PARAMETERS - 1);
    const marks = chunk.map((_, k) => `?${k + 2}`).join(", ");
    await db
      .prepare(`DELETE FROM object_reclaims WHERE reclaim_at <= ?1 AND prefix IN (${marks})`)
      .bind(now, ...chunk)
      .run()
      .catch((err) => console.error("storage: reclaimed prefixes stay listed until the next sweep", err));
  }
}

/** The scheduled sweep: deletes the bytes under every prefix whose time has come. */
export async function reclaimDue(db: D1Database, bucket: R2Bucket, now: string): Promise<number> {
  const { results } = await db
    .prepare("SELECT prefix FROM object_reclaims WHERE reclaim_at <= ?1 ORDER BY reclaim_at LIMIT ?2")
    .bind(now, RECLAIM_BATCH)
    .all<{ prefix: string }>();
  await reclaimNow(
    db,
    bucket,
    results.map((r) => r.prefix),
    now,
  );
  return results.length;
}
