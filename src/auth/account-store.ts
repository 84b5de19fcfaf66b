import { hashApiKey } from "./api-keys.ts";

/** `operator`: the account's keys may read the whole service's metrics (GET /v1/admin/metrics). */
export type Account = { id: string; name: string; creditBalance: number | null; operator: boolean };

/** Finds the account behind a live (not revoked) API key. */
export async function findAccountByKey(db: D1Database, key: string): Promise<Account | null> {
  const hash = await hashApiKey(key);
  const row = await db
    .prepare(
      `SELECT a.id, a.name, a.credit_balance, a.operator FROM api_keys k JOIN accounts a ON a.id = k.account_id
       WHERE k.key_hash = ?1 AND k.revoked_at IS NULL`,
    )
    .bind(hash)
    .first<{ id: string; name: string; credit_balance: number | null; operator: number }>();
  return row ? { id: row.id, name: row.name, creditBalance: row.credit_balance, operator: row.operator === 1 } : null;
}
