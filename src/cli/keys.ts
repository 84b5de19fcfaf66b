// npm run keys -- create --account NAME [--credits N] [--local|--remote]
// npm run keys -- revoke --key KEY [--local|--remote]
// Prints the new key as the last line of stdout: it is shown once and stored only as a hash.
import { parseArgs } from "node:util";
import { displayPrefix, generateApiKey, hashApiKey, looksLikeApiKey } from "../auth/api-keys.ts";
import { sqlString, wrangler } from "./wrangler.ts";

const ACCOUNT_NAME = /^[A-Za-z0-9_.@-]{1,64}$/;

function createKeySql(account: string, keyHash: string, keyPrefix: string, credits: number | null, now: string): string {
  const statements = [
    `INSERT INTO accounts (id, name, credit_balance, created_at) VALUES (${sqlString(crypto.randomUUID())}, ${sqlString(account)}, NULL, ${sqlString(now)}) ON CONFLICT(name) DO NOTHING;`,
    `INSERT INTO api_keys (id, account_id, key_hash, key_prefix, created_at) SELECT ${sqlString(crypto.randomUUID())}, id, ${sqlString(keyHash)}, ${sqlString(keyPrefix)}, ${sqlString(now)} FROM accounts WHERE name = ${sqlString(account)} ON CONFLICT(key_hash) DO NOTHING;`,
  ];
  if (credits !== null) statements.push(`UPDATE accounts SET credit_balance = ${credits} WHERE name = ${sqlString(account)};`);
  return statements.join("\n");
}

export async function createKey(opts: { account: string; credits: number | null; target: string[]; key?: string }): Promise<string> {
  if (!ACCOUNT_NAME.test(opts.account)) throw new Error("--account must be 1-64 letters, digits or _ . @ -");
  const key = opts.key ?? generateApiKey();
  if (!looksLikeApiKey(key)) throw new Error("a key must look like ffj_ followed by 43 base64url characters");
  const sql = createKeySql(opts.account, await hashApiKey(key), displayPrefix(key), opts.credits, new Date().toISOString());
  wrangler(["d1", "execute", "DB", ...opts.target, "--command", sql], { quiet: true });
  return key;
}

export function localTarget(): string[] {
  const state = process.env.FFJOBS_STATE_DIR;
  return ["--local", ...(state ? ["--persist-to", state] : [])];
}

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      account: { type: "string" },
      credits: { type: "string" },
      key: { type: "string" },
      local: { type: "boolean" },
      remote: { type: "boolean" },
    },
  });
  const target = values.remote ? ["--remote"] : localTarget();
  const [action] = positionals;
  if (action === "create" && values.account) {
    const credits = values.credits === undefined ? null : Number(values.credits);
    if (credits !== null && !Number.isInteger(credits)) throw new Error("--credits must be an integer");
    const key = await createKey({ account: values.account, credits, target });
    console.error(`Created a key for account "${values.account}". Store it now: it is not shown again.`);
    console.log(key);
  } else if (action === "revoke" && values.key) {
    const sql = `UPDATE api_keys SET revoked_at = ${sqlString(new Date().toISOString())} WHERE key_hash = ${sqlString(await hashApiKey(values.key))} AND revoked_at IS NULL;`;
    wrangler(["d1", "execute", "DB", ...target, "--command", sql], { quiet: true });
    console.log("revoked");
  } else {
    console.error("usage: npm run keys -- create --account NAME [--credits N] [--local|--remote]\n       npm run keys -- revoke --key KEY [--local|--remote]");
    process.exit(2);
  }
}

if (import.meta.main) {
  main().catch((err: Error) => {
    console.error(err.message);
    process.exit(1);
  });
}
