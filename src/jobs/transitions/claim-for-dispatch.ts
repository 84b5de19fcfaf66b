import { heldSecondsSql } from "../store/credit-reservations.ts";
import type { JobRow } from "../store/job-row.ts";

/**
 * queued (not with a runner) → handed to a runner, as attempt `attempts + 1`, only if the account's
 * limits allow it at this instant: fewer than `maxActive` of its jobs created before this one still
 * unfinished, and a credit balance (when it has one) above the seconds' charges its jobs already with a
 * runner hold (credit-reservations.ts: one per container each runs). False when it was not claimed;
 * `whyNotClaimed` says why. The status stays queued (markStarted moves it on); like every statement in
 * this folder, the WHERE clause is the whole decision, so concurrent coordinators change nothing.
 */
export async function claimForDispatch(
  db: D1Database,
  id: string,
  now: string,
  limits: { maxActive: number; creditsPerSecond: number },
): Promise<boolean> {
  const r = await db
    .prepare(
      `UPDATE jobs SET attempts = attempts + 1, dispatched_at = ?2, updated_at = ?2
       WHERE id = ?1 AND status = 'queued' AND dispatched_at IS NULL
         AND (SELECT COUNT(*) FROM jobs o WHERE o.account_id = jobs.account_id AND o.status IN ('queued', 'running')
              AND (o.created_at < jobs.created_at OR (o.created_at = jobs.created_at AND o.id < jobs.id))) < ?3
         AND COALESCE((SELECT credit_balance FROM accounts a WHERE a.id = jobs.account_id), 9e18)
             > ${heldSecondsSql("jobs.account_id", "jobs.id")} * ?4`,
    )
    .bind(id, now, limits.maxActive, limits.creditsPerSecond)
    .run();
  return r.meta.changes === 1;
}

export type NotClaimed = "gone" | "already-dispatched" | "no-credits" | "too-many-active" | "credits-reserved";

/** Why `claimForDispatch` did not claim the job (read after the fact; only advice for the next step). */
export async function whyNotClaimed(db: D1Database, job: JobRow, maxActive: number): Promise<NotClaimed> {
  if (job.status !== "queued") return "gone";
  if (job.dispatched_at !== null) return "already-dispatched";
  const row = await db
    .prepare(
      `SELECT (SELECT credit_balance FROM accounts WHERE id = ?1) AS balance,
              (SELECT COUNT(*) FROM jobs o WHERE o.account_id = ?1 AND o.status IN ('queued', 'running')
                 AND (o.created_at < ?2 OR (o.created_at = ?2 AND o.id < ?3))) AS before`,
    )
    .bind(job.account_id, job.created_at, job.id)
    .first<{ balance: number | null; before: number }>();
  if (row && row.balance !== null && row.balance <= 0) return "no-credits";
  if (row && row.before >= maxActive) return "too-many-active";
  return "credits-reserved";
}

/** Undoes a claim the runner turned away for lack of capacity: that was no attempt. */
export async function unclaimDispatch(db: D1Database, id: string, attempts: number, now: string): Promise<void> {
  await db
    .prepare(
      "UPDATE jobs SET attempts = attempts - 1, dispatched_at = NULL, updated_at = ?3 WHERE id = ?1 AND status = 'queued' AND attempts = ?2",
    )
    .bind(id, attempts, now)
    .run();
}
