import { STORED_VIEW_MAX_BYTES } from "../jobs/store/row-budget.ts";
import { utf8Bytes } from "../jobs/store/stored-bytes.ts";

/**
 * Idempotency keys, as rows: a request claims its key with one guarded insert (so of two concurrent
 * duplicates exactly one proceeds), then records its response; retries read it back.
 */
export type IdempotencyRow = {
  request_hash: string;
  status: number | null;
  response_json: string | null;
  location: string | null;
  expires_at: string;
};

export type Claim = {
  account: string;
  operation: string;
  key: string;
  hash: string;
  now: Date;
  ttlMs: number;
  leaseMs: number;
};

/** True when this request holds the key now; false when another request already did (see `readKey`). */
export async function claimKey(db: D1Database, c: Claim): Promise<boolean> {
  const now = c.now.toISOString();
  const [, inserted] = await db.batch([
    // An expired key is free again, and so is a claim whose request died before it answered.
    db
      .prepare(
        `DELETE FROM idempotency_keys WHERE account_id = ?1 AND operation = ?2 AND idem_key = ?3
         AND (expires_at <= ?4 OR (status IS NULL AND created_at <= ?5))`,
      )
      .bind(c.account, c.operation, c.key, now, new Date(c.now.getTime() - c.leaseMs).toISOString()),
    db
      .prepare(
        `INSERT OR IGNORE INTO idempotency_keys (account_id, operation, idem_key, request_hash, created_at, expires_at)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6)`,
      )
      .bind(c.account, c.operation, c.key, c.hash, now, new Date(c.now.getTime() + c.ttlMs).toISOString()),
  ]);
  return inserted.meta.changes === 1;
}

export function readKey(
  db: D1Database,
  c: Pick<Claim, "account" | "operation" | "key">,
): Promise<IdempotencyRow | null> {
  return db
    .prepare(
      "SELECT request_hash, status, response_json, location, expires_at FROM idempotency_keys WHERE account_id = ?1 AND operation = ?2 AND idem_key = ?3",
    )
    .bind(c.account, c.operation, c.key)
    .first<IdempotencyRow>();
}

/**
 * Keeps the first answer for replays. Its row holds at most 2,000,000 bytes (D1): an answer larger
 * than STORED_VIEW_MAX_BYTES (a finished job's full form with thousands of directory files, after
 * `Prefer: wait`) keeps only its status and Location, and is replayed as a 303 to that Location.
 */
export async function recordResponse(
  db: D1Database,
  c: Pick<Claim, "account" | "operation" | "key">,
  r: { status: number; body: string; location: string | null },
): Promise<void> {
  const body = utf8Bytes(r.body) > STORED_VIEW_MAX_BYTES ? null : r.body;
  await db
    .prepare(
      "UPDATE idempotency_keys SET status = ?4, response_json = ?5, location = ?6 WHERE account_id = ?1 AND operation = ?2 AND idem_key = ?3 AND status IS NULL",
    )
    .bind(c.account, c.operation, c.key, r.status, body, r.location)
    .run();
}

/** The first request failed on the server's side: a retry may try again with the same key. */
export async function releaseKey(db: D1Database, c: Pick<Claim, "account" | "operation" | "key">): Promise<void> {
  await db
    .prepare(
      "DELETE FROM idempotency_keys WHERE account_id = ?1 AND operation = ?2 AND idem_key = ?3 AND status IS NULL",
    )
    .bind(c.account, c.operation, c.key)
    .run();
}

/** The sweeper's share: keys past their 24 h. */
export async function deleteExpiredKeys(db: D1Database, now: Date): Promise<number> {
  const r = await db.prepare("DELETE FROM idempotency_keys WHERE expires_at <= ?1").bind(now.toISOString()).run();
  return r.meta.changes;
}
