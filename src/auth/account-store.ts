import { hashApiKey } from "./api-keys.ts";

export type Account = { id: string; name: string; creditBalance: number | null };

/** Finds the account behind a live (not revoked) API key. */
export async function findAccountByKey(db: D1Database, key: string): Promise<Account | null> {
  const hash = await hashApiKey(key);
  const row = await db
    .prepare(
      `SELECT a.id, a.name, a.credit_balance FROM api_keys k JOIN accounts a ON a.id = k.account_id
       WHERE k.key_hash = ?1 AND k.revoked_at IS NULL`,
    )
    .bind(hash)
    .first<{ id: string; name: string; credit_balance: number | null }>();
  return row ? { id: row.id, name: row.name, creditBalance: row.credit_balance } : null;
}
