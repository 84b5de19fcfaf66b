/*
 * The link between an MCP tool call and the job it created. A client cancels a call with a
 * `notifications/cancelled` naming the call's JSON-RPC id, sent as a request of its own (the server
 * keeps no session in memory), so the call's job is found here: by account and a hash of the session
 * the server named at `initialize` and the id. Either side may come first; each is one guarded
 * statement, and whichever comes second learns of the other.
 */

/** How long a call's link to its job is kept: far beyond any wait (MCP_MAX_WAIT_SECONDS), swept by the cron. */
export const MCP_CALL_TTL_MS = 24 * 3600 * 1000;
/** How long a cancellation that found no job yet waits for it: the job follows its call within a second. */
export const MCP_EARLY_CANCEL_TTL_MS = 60 * 1000;
/**
 * Cancellations waiting for their jobs, per account: each costs a row and anyone with a key can send
 * them, so beyond this many a cancellation with no job yet is not kept (its call's job, if one comes,
 * is still cancelled by `cancel_job`).
 */
export const MAX_EARLY_CANCELS_PER_ACCOUNT = 100;

/** A call's key: a SHA-256 of its session and its JSON-RPC id (a string and a number kept apart): 64 characters whatever the id. */
export async function callKey(sessionId: string, requestId: string | number): Promise<string> {
  const bytes = new TextEncoder().encode(`${sessionId}:${JSON.stringify(requestId)}`);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Records the call's job; true when the call was cancelled before it (the job is then to be cancelled).
 * A key that already had a job is a call id used again (a client that reconnected with its session):
 * the new call starts uncancelled.
 */
export async function linkCallToJob(db: D1Database, accountId: string, key: string, jobId: string, now: Date) {
  const row = await db
    .prepare(
      `INSERT INTO mcp_calls (account_id, call_key, job_id, created_at) VALUES (?1, ?2, ?3, ?4)
       ON CONFLICT (account_id, call_key) DO UPDATE SET
         canceled = CASE WHEN mcp_calls.job_id IS NULL THEN mcp_calls.canceled ELSE 0 END,
         job_id = excluded.job_id, created_at = excluded.created_at
       RETURNING canceled`,
    )
    .bind(accountId, key, jobId, now.toISOString())
    .first<{ canceled: number }>();
  return row?.canceled === 1;
}

/** Marks the call cancelled; the job it created, when it has one yet (else linkCallToJob will say so). */
export async function cancelCall(db: D1Database, accountId: string, key: string, now: Date) {
  const row = await db
    .prepare(
      `INSERT INTO mcp_calls (account_id, call_key, canceled, created_at)
       SELECT ?1, ?2, 1, ?3
       WHERE EXISTS (SELECT 1 FROM mcp_calls WHERE account_id = ?1 AND call_key = ?2)
          OR (SELECT COUNT(*) FROM mcp_calls WHERE account_id = ?1 AND job_id IS NULL) < ?4
       ON CONFLICT (account_id, call_key) DO UPDATE SET canceled = 1
       RETURNING job_id`,
    )
    .bind(accountId, key, now.toISOString(), MAX_EARLY_CANCELS_PER_ACCOUNT)
    .first<{ job_id: string | null }>();
  return row?.job_id ?? null;
}

/** Drops links past MCP_CALL_TTL_MS and cancellations whose job never came within MCP_EARLY_CANCEL_TTL_MS. */
export async function deleteExpiredCalls(db: D1Database, now: Date): Promise<number> {
  const before = (ms: number) => new Date(now.getTime() - ms).toISOString();
  const r = await db
    .prepare("DELETE FROM mcp_calls WHERE created_at <= ?1 OR (job_id IS NULL AND created_at <= ?2)")
    .bind(before(MCP_CALL_TTL_MS), before(MCP_EARLY_CANCEL_TTL_MS))
    .run();
  return r.meta.changes;
}
