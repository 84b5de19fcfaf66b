// The R2 API token (access key id + secret) the Worker signs presigned URLs with. Only a person can
// make it (dashboard → R2 → Manage API tokens, Object Read & Write); the deploy reads it
// from the environment, keeps the one already set, or asks for it in a terminal.
import type { Inventory } from "./inventory.ts";
import { R2_BUCKET, R2_SECRET_NAMES } from "./resources.ts";

export type R2Credentials =
  | { kind: "set"; accessKeyId: string; secretAccessKey: string }
  | { kind: "keep" }
  | { kind: "missing"; reason: string };

/** Asks one question in the terminal; `hidden` for the secret. Absent when stdin is not a TTY. */
export type Ask = (question: string, hidden: boolean) => Promise<string>;

export const CREDENTIALS_HELP =
  `Make an R2 API token in the Cloudflare dashboard (R2 → Manage API tokens → Create API token, ` +
  `permission "Object Read & Write" on all buckets or on ${R2_BUCKET}), then either run \`npm run deploy\` in a ` +
  `terminal and paste its two values when asked, or set R2_ACCESS_KEY_ID and R2_SECRET_ACCESS_KEY.`;

export async function resolveCredentials(
  env: Record<string, string | undefined>,
  inventory: Pick<Inventory, "secrets">,
  ask?: Ask,
): Promise<R2Credentials> {
  const accessKeyId = env.R2_ACCESS_KEY_ID?.trim();
  const secretAccessKey = env.R2_SECRET_ACCESS_KEY?.trim();
  // Given in the environment: set them, also over the ones already set (that is how a token rotates).
  if (accessKeyId && secretAccessKey) return { kind: "set", accessKeyId, secretAccessKey };
  if (accessKeyId || secretAccessKey) {
    return {
      kind: "missing",
      reason: `only ${accessKeyId ? "R2_ACCESS_KEY_ID" : "R2_SECRET_ACCESS_KEY"} is set; set both`,
    };
  }
  if (R2_SECRET_NAMES.every((name) => inventory.secrets.includes(name))) return { kind: "keep" };
  if (!ask)
    return { kind: "missing", reason: "the Worker has no R2 credentials yet, and this is not a terminal to ask in" };
  const askedId = (await ask("R2 access key id: ", false)).trim();
  const askedSecret = (await ask("R2 secret access key: ", true)).trim();
  if (!askedId || !askedSecret) return { kind: "missing", reason: "an empty answer" };
  return { kind: "set", accessKeyId: askedId, secretAccessKey: askedSecret };
}
