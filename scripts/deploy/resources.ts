// What a deployment of ffjobs consists of on the account, by name. These names are wrangler.toml's
// (test/unit/deploy-plan.test.ts checks they match it), so a fresh clone deploys to any account
// without account-specific ids in the repository.

export const WORKER_NAME = "ffjobs";

/** The D1 database: wrangler finds it by `database_name` (wrangler.toml carries no database_id). */
export const D1_DATABASE = { binding: "DB", name: "ffjobs" } as const;

export const R2_BUCKET = "ffjobs-media";

/** Every queue the Worker produces to or consumes from, dead-letter queues included. */
export const QUEUES = ["ffjobs-jobs", "ffjobs-jobs-dlq", "ffjobs-webhooks", "ffjobs-webhooks-dlq"] as const;

/** The Worker's secrets for presigned R2 URLs: an R2 API token made by a person in the dashboard. */
export const R2_SECRET_NAMES = ["R2_ACCESS_KEY_ID", "R2_SECRET_ACCESS_KEY"] as const;

/** The S3-compatible endpoint presigned URLs point at (the Worker's R2_S3_ENDPOINT). */
export function r2Endpoint(accountId: string): string {
  return `https://${accountId}.r2.cloudflarestorage.com`;
}

/** Account ids are 32 hex digits; anything else is refused before it reaches a URL or a command. */
export const ACCOUNT_ID_PATTERN = /^[0-9a-f]{32}$/;
