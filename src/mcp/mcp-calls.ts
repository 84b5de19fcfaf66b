/*
 * The link between an MCP tool call and the job it created. A client cancels a call with a
 * `notifications/cancelled` naming the call's JSON-RPC id, sent as a request of its own (the server
 * keeps no session in memory), so the call's job is found here: by account, the session the server
 * named at `initialize` and the id. Either side may come first; each is one guarded statement, and
 * whichever comes second learns of the other.
 */

/** How long a call's link is kept: far beyond any wait (MCP_MAX_WAIT_SECONDS), swept by the cron. */
export const MCP_CALL_TTL_MS = 24 * 3600 * 1000;

/** A call's key: its session and its JSON-RPC id (a string or a number, kept apart by their JSON). */
export function callKey(sessionId: string, requestId: string | number): string {
  return `${sessionId}:${JSON.stringify(requestId)}`;
}

/** Records the call's job; true when the call was cancelled before it (the job is then to be cancelled). */
export async function linkCallToJob(db: D1Database, accountId: string, key: string, jobId: string, now: Date) {
  const row = await db
    .prepare(
      `INSERT INTO mcp_calls (account_id, call_key, job_id, created_at) VALUES (?1, ?2, ?3, ?4)
       ON CONFLICT (account_id, call_key) DO UPDATE SET job_id = excluded.job_id
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
      `INSERT INTO mcp_calls (account_id, call_key, canceled, created_at) VALUES (?1, ?2, 1, ?3)
       ON CONFLICT (account_id, call_key) DO UPDATE SET canceled = 1
       RETURNING job_id`,
    )
    .bind(accountId, key, now.toISOString())
    .first<{ job_id: string | null }>();
  return row?.job_id ?? null;
}

export async function deleteExpiredCalls(db: D1Database, now: Date): Promise<number> {
  const before = new Date(now.getTime() - MCP_CALL_TTL_MS).toISOString();
  const r = await db.prepare("DELETE FROM mcp_calls WHERE created_at <= ?1").bind(before).run();
  return r.meta.changes;
}
