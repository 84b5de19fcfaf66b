import { generateWebhookSecret } from "./signing.ts";

/** How long the previous secret keeps signing after a rotation, so receivers can switch over. */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

export type WebhookSecrets = {
  current: string;
  createdAt: string;
  previous: string | null;
  previousExpiresAt: string | null;
};

type Row = { secret: string; created_at: string; previous_secret: string | null; previous_expires_at: string | null };

/** The account's secrets, creating the first one on demand. */
export async function getSecrets(db: D1Database, accountId: string, now: Date): Promise<WebhookSecrets> {
  await db
    .prepare(
      "INSERT INTO webhook_secrets (account_id, secret, created_at) VALUES (?1, ?2, ?3) ON CONFLICT(account_id) DO NOTHING",
    )
    .bind(accountId, generateWebhookSecret(), now.toISOString())
    .run();
  const row = (await db.prepare("SELECT * FROM webhook_secrets WHERE account_id = ?1").bind(accountId).first<Row>())!;
  const previousLive =
    row.previous_secret && row.previous_expires_at && Date.parse(row.previous_expires_at) > now.getTime();
  return {
    current: row.secret,
    createdAt: row.created_at,
    previous: previousLive ? row.previous_secret : null,
    previousExpiresAt: previousLive ? row.previous_expires_at : null,
  };
}

/** Every secret that signs a request sent now: the current one, plus the previous one while it overlaps. */
export function signingSecrets(s: WebhookSecrets): string[] {
  return s.previous ? [s.current, s.previous] : [s.current];
}

export async function rotateSecret(db: D1Database, accountId: string, now: Date): Promise<WebhookSecrets> {
  await getSecrets(db, accountId, now);
  await db
    .prepare(
      `UPDATE webhook_secrets SET previous_secret = secret, previous_expires_at = ?2, secret = ?3, created_at = ?4
       WHERE account_id = ?1`,
    )
    .bind(
      accountId,
      new Date(now.getTime() + ROTATION_OVERLAP_MS).toISOString(),
      generateWebhookSecret(),
      now.toISOString(),
    )
    .run();
  return getSecrets(db, accountId, now);
}
