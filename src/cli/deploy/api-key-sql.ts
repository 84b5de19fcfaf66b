// API keys the deploy makes in the remote D1: the smoke test's (an account of its own, revoked when the
// test ends) and, with --create-key, the operator's first. Same rows as `npm run keys -- create`
// (src/cli/keys.ts), run through the deploy's wrangler, which uses the person's `wrangler login`.
import { displayPrefix, generateApiKey, hashApiKey } from "../../auth/api-keys.ts";
import { sqlString } from "../wrangler.ts";

export const SMOKE_ACCOUNT = "ffjobs-smoke";

const ACCOUNT_NAME = /^[A-Za-z0-9_.@-]{1,64}$/;

export type NewKey = { account: string; key: string; hash: string; prefix: string; accountRowId: string; keyRowId: string; at: string };

export async function newKey(now = new Date(), account = SMOKE_ACCOUNT): Promise<NewKey> {
  if (!ACCOUNT_NAME.test(account)) throw new Error("an account name is 1-64 letters, digits or _ . @ -");
  const key = generateApiKey();
  return { account, key, hash: await hashApiKey(key), prefix: displayPrefix(key), accountRowId: crypto.randomUUID(), keyRowId: crypto.randomUUID(), at: now.toISOString() };
}

/** No credit balance (unlimited): the smoke jobs cost a few seconds and must not be refused. */
export function createKeySql(k: NewKey): string {
  return [
    `INSERT INTO accounts (id, name, credit_balance, created_at) VALUES (${sqlString(k.accountRowId)}, ${sqlString(k.account)}, NULL, ${sqlString(k.at)}) ON CONFLICT(name) DO NOTHING;`,
    `INSERT INTO api_keys (id, account_id, key_hash, key_prefix, created_at) SELECT ${sqlString(k.keyRowId)}, id, ${sqlString(k.hash)}, ${sqlString(k.prefix)}, ${sqlString(k.at)} FROM accounts WHERE name = ${sqlString(k.account)};`,
  ].join("\n");
}

export function revokeKeySql(k: Pick<NewKey, "hash" | "at">): string {
  return `UPDATE api_keys SET revoked_at = ${sqlString(k.at)} WHERE key_hash = ${sqlString(k.hash)} AND revoked_at IS NULL;`;
}
