// What already exists on the account: read before anything is created, so a second deploy creates
// nothing. Each reader parses one wrangler command's output; `discover` runs them.
import { stripVTControlCharacters } from "node:util";
import { ACCOUNT_ID_PATTERN, QUEUES } from "./resources.ts";
import type { RunWrangler, WranglerResult } from "./run-wrangler.ts";

export type Inventory = {
  accountId: string;
  databases: string[];
  buckets: string[];
  queues: string[];
  /** Names of the Worker's secrets; empty when the Worker was never deployed. */
  secrets: string[];
  workerExists: boolean;
};

export class DeployError extends Error {}

/** The account to deploy to: CLOUDFLARE_ACCOUNT_ID, else the login's only account. */
export function chooseAccount(whoami: WranglerResult, envAccountId: string | undefined): string {
  if (whoami.status !== 0)
    throw new DeployError("Not logged in to Cloudflare: run `npx wrangler login` first (or set CLOUDFLARE_API_TOKEN).");
  if (envAccountId) {
    if (!ACCOUNT_ID_PATTERN.test(envAccountId))
      throw new DeployError(`CLOUDFLARE_ACCOUNT_ID must be 32 hex digits, got "${envAccountId}"`);
    return envAccountId;
  }
  const info = parseJson(whoami.stdout, "wrangler whoami --json") as { accounts?: { id: string; name: string }[] };
  const accounts = info.accounts ?? [];
  if (accounts.length === 1) return accounts[0].id;
  if (accounts.length === 0) throw new DeployError("This login has no Cloudflare account.");
  const list = accounts.map((a) => `  ${a.id}  ${a.name}`).join("\n");
  throw new DeployError(
    `This login has ${accounts.length} accounts; choose one with CLOUDFLARE_ACCOUNT_ID=<id>:\n${list}`,
  );
}

export function parseD1List(r: WranglerResult): string[] {
  ensureOk(r, "wrangler d1 list --json");
  return (parseJson(r.stdout, "wrangler d1 list --json") as { name: string }[]).map((d) => d.name);
}

/** `r2 bucket list` prints `name: <bucket>` / `creation_date: …` blocks (it has no JSON output). */
export function parseR2BucketList(r: WranglerResult): string[] {
  ensureOk(r, "wrangler r2 bucket list");
  return [...stripVTControlCharacters(r.stdout).matchAll(/^name:\s+(\S+)\s*$/gm)].map((m) => m[1]);
}

/** `queues info NAME`: found, or "does not exist"; any other failure (auth, network) stops the deploy. */
export function queueExists(r: WranglerResult, name: string): boolean {
  if (r.status === 0) return true;
  if (/does not exist/i.test(r.stdout + r.stderr)) return false;
  ensureOk(r, `wrangler queues info ${name}`);
  return false;
}

/** `secret list`: the secrets' names, or none (and no Worker yet) when the Worker is not found. */
export function parseSecretList(r: WranglerResult): { workerExists: boolean; secrets: string[] } {
  if (r.status !== 0 && /not found/i.test(r.stdout + r.stderr)) return { workerExists: false, secrets: [] };
  ensureOk(r, "wrangler secret list");
  return {
    workerExists: true,
    secrets: (parseJson(r.stdout, "wrangler secret list") as { name: string }[]).map((s) => s.name),
  };
}

export function discover(run: RunWrangler, envAccountId: string | undefined): Inventory {
  const accountId = chooseAccount(run(["whoami", "--json"]), envAccountId);
  const opts = { env: { CLOUDFLARE_ACCOUNT_ID: accountId } };
  const databases = parseD1List(run(["d1", "list", "--json"], opts));
  const buckets = parseR2BucketList(run(["r2", "bucket", "list"], opts));
  // One lookup per queue by name: `queues list` pages, and a name lookup is exact.
  const queues = QUEUES.filter((q) => queueExists(run(["queues", "info", q], opts), q));
  const { workerExists, secrets } = parseSecretList(run(["secret", "list", "--format", "json"], opts));
  return { accountId, databases, buckets, queues, secrets, workerExists };
}

function ensureOk(r: WranglerResult, what: string): void {
  if (r.status !== 0) throw new DeployError(`${what} failed (exit ${r.status}):\n${r.stdout}${r.stderr}`.trimEnd());
}

/** wrangler may print a warning line before its JSON: parse from the first bracket. */
function parseJson(text: string, what: string): unknown {
  const start = text.search(/[[{]/);
  try {
    return JSON.parse(start < 0 ? text : text.slice(start));
  } catch {
    throw new DeployError(`${what} printed something that is not JSON:\n${text}`);
  }
}
