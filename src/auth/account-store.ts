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

/** SQL that creates an account (if new) and a key for it; shared by the keys CLI and the tests. */
export function createKeyStatements(accountName: string, keyHash: string, keyPrefix: string, now: string) {
  const accountId = crypto.randomUUID();
  const keyId = crypto.randomUUID();
  return [
    {
      sql: "INSERT INTO accounts (id, name, credit_balance, created_at) VALUES (?1, ?2, NULL, ?3) ON CONFLICT(name) DO NOTHING",
      params: [accountId, accountName, now],
    },
    {
      sql: "INSERT INTO api_keys (id, account_id, key_hash, key_prefix, created_at) SELECT ?1, id, ?2, ?3, ?4 FROM accounts WHERE name = ?5",
      params: [keyId, keyHash, keyPrefix, now, accountName],
    },
  ];
}
