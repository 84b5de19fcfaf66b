// npm run keys -- create --account NAME [--credits N] [--operator] [--local|--remote]
// npm run keys -- revoke --key KEY [--local|--remote]
// Prints the new key as the last line of stdout: it is shown once and stored only as a hash.
import { parseArgs } from "node:util";
import { hashApiKey } from "../src/auth/api-keys.ts";
import { createKeySql, newKey, revokeKeySql } from "./api-key-sql.ts";
import { realWrangler } from "./deploy/run-wrangler.ts";
import { wrangler } from "./wrangler.ts";

export async function createKey(opts: {
  account: string;
  credits: number | null;
  target: string[];
  key?: string;
  operator?: boolean;
}): Promise<string> {
  const k = await newKey(new Date(), opts.account, opts.key);
  execute(opts.target, createKeySql(k, opts.credits, opts.operator));
  return k.key;
}

/**
 * Locally with the project's quiet wrangler; `--remote` with the person's own `wrangler login`
 * (the project's dev and test runs keep wrangler's config inside the repository, where none is).
 */
function execute(target: string[], sql: string): void {
  const args = ["d1", "execute", "DB", ...target, "--command", sql];
  if (!target.includes("--remote")) return void wrangler(args, { quiet: true });
  const r = realWrangler()(args);
  if (r.status !== 0) throw new Error(`wrangler ${args.slice(0, 4).join(" ")} failed:\n${r.stdout}\n${r.stderr}`);
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
      operator: { type: "boolean" },
      local: { type: "boolean" },
      remote: { type: "boolean" },
    },
  });
  const target = values.remote ? ["--remote"] : localTarget();
  const [action] = positionals;
  if (action === "create" && values.account) {
    const credits = values.credits === undefined ? null : Number(values.credits);
    if (credits !== null && !Number.isInteger(credits)) throw new Error("--credits must be an integer");
    const key = await createKey({ account: values.account, credits, target, operator: values.operator });
    console.error(
      `Created a key for ${values.operator ? "operator " : ""}account "${values.account}". Store it now: it is not shown again.`,
    );
    console.log(key);
  } else if (action === "revoke" && values.key) {
    execute(target, revokeKeySql({ hash: await hashApiKey(values.key), at: new Date().toISOString() }));
    console.log("revoked");
  } else {
    console.error(
      "usage: npm run keys -- create --account NAME [--credits N] [--operator] [--local|--remote]\n       npm run keys -- revoke --key KEY [--local|--remote]",
    );
    process.exit(2);
  }
}

if (import.meta.main) {
  main().catch((err: Error) => {
    console.error(err.message);
    process.exit(1);
  });
}
