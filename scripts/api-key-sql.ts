// The rows of an API key, one place for every tool that makes or revokes them: `npm run keys`, the dev
// launcher's seeded key, and the deploy (the smoke test's key, revoked when the test ends, and with
// --create-key the operator's first). A key is stored only as its hash.
import { displayPrefix, generateApiKey, hashApiKey, looksLikeApiKey } from "../src/auth/api-keys.ts";
import { sqlString } from "./wrangler.ts";

export const SMOKE_ACCOUNT = "ffjobs-smoke";

const ACCOUNT_NAME = /^[A-Za-z0-9_.@-]{1,64}$/;

export type NewKey = {
  account: string;
  key: string;
  hash: string;
  prefix: string;
  accountRowId: string;
  keyRowId: string;
  at: string;
};

export async function newKey(now = new Date(), account = SMOKE_ACCOUNT, given?: string): Promise<NewKey> {
  if (!ACCOUNT_NAME.test(account)) throw new Error("an account name is 1-64 letters, digits or _ . @ -");
  if (given !== undefined && !looksLikeApiKey(given))
    throw new Error("a key must look like ffj_ followed by 43 base64url characters");
  const key = given ?? generateApiKey();
  return {
    account,
    key,
    hash: await hashApiKey(key),
    prefix: displayPrefix(key),
    accountRowId: crypto.randomUUID(),
    keyRowId: crypto.randomUUID(),
    at: now.toISOString(),
  };
}

/**
 * A new account (no credit balance: unlimited, unless `credits` sets one) or an existing one of
 * that name, and the key in it; the same key twice is stored once. `operator` marks the account as
 * one whose keys may read the whole service's metrics.
 */
export function createKeySql(k: NewKey, credits: number | null = null, operator = false): string {
  const statements = [
    `INSERT INTO accounts (id, name, credit_balance, created_at) VALUES (${sqlString(k.accountRowId)}, ${sqlString(k.account)}, NULL, ${sqlString(k.at)}) ON CONFLICT(name) DO NOTHING;`,
    `INSERT INTO api_keys (id, account_id, key_hash, key_prefix, created_at) SELECT ${sqlString(k.keyRowId)}, id, ${sqlString(k.hash)}, ${sqlString(k.prefix)}, ${sqlString(k.at)} FROM accounts WHERE name = ${sqlString(k.account)} ON CONFLICT(key_hash) DO NOTHING;`,
  ];
  if (credits !== null)
    statements.push(`UPDATE accounts SET credit_balance = ${credits} WHERE name = ${sqlString(k.account)};`);
  if (operator) statements.push(`UPDATE accounts SET operator = 1 WHERE name = ${sqlString(k.account)};`);
  return statements.join("\n");
}

export function revokeKeySql(k: Pick<NewKey, "hash" | "at">): string {
  return `UPDATE api_keys SET revoked_at = ${sqlString(k.at)} WHERE key_hash = ${sqlString(k.hash)} AND revoked_at IS NULL;`;
}
