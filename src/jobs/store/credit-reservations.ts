/*
 * What an account's credit balance holds back for its jobs under way. Credits are debited when
 * a job ends, so the balance is a gate at the start, not a meter: each job with a runner holds one
 * second's charge for every container it runs at once (an ordinary job one, a split job its running
 * tasks, at least one), so no job multiplies the rate at which a limited balance is spent.
 */

/**
 * SQL: seconds' charges held by the account's jobs with a runner other than one job; `account` and
 * `job` are the SQL expressions naming them (bound parameters, or columns of the outer statement).
 */
export function heldSecondsSql(account: string, job: string): string {
  return `(SELECT COALESCE(SUM(MAX(1, (SELECT COUNT(*) FROM job_tasks t WHERE t.job_id = o.id AND t.status = 'running'))), 0)
     FROM jobs o WHERE o.account_id = ${account} AND o.id <> ${job} AND o.status IN ('queued', 'running') AND o.dispatched_at IS NOT NULL)`;
}

/**
 * How many of a split job's tasks may run at once: `maxWorkers`, or fewer when the account's balance,
 * less what its other jobs hold and what this job's tasks have already run, covers fewer seconds' charges
 * at once. Never fewer than one: a job that was started goes on, spending as an ordinary job would.
 */
export async function affordableWorkers(
  db: D1Database,
  job: { id: string; account_id: string },
  maxWorkers: number,
  creditsPerSecond: number,
): Promise<number> {
  if (creditsPerSecond <= 0) return maxWorkers;
  const row = await db
    .prepare(
      `SELECT (SELECT credit_balance FROM accounts WHERE id = ?1) AS balance, ${heldSecondsSql("?1", "?2")} AS held,
              (SELECT COALESCE(SUM(runtime_ms), 0) FROM job_tasks WHERE job_id = ?2) AS ranMs`,
    )
    .bind(job.account_id, job.id)
    .first<{ balance: number | null; held: number; ranMs: number }>();
  if (!row || row.balance === null) return maxWorkers;
  const seconds = Math.floor(row.balance / creditsPerSecond - row.held - Math.ceil(row.ranMs / 1000));
  return Math.min(maxWorkers, Math.max(1, seconds));
}
