/**
 * Verifies a Standard Webhooks delivery (https://www.standardwebhooks.com): the `webhook-signature`
 * header holds one or more `v1,<base64 HMAC-SHA256>` over `<webhook-id>.<webhook-timestamp>.<body>`.
 * During a secret rotation ffjobs signs with both secrets, so either the old or the new one verifies.
 * Throws WebhookVerificationError; returns the parsed event.
 */
export class WebhookVerificationError extends Error {}

/** Deliveries older (or newer) than this are refused: a captured request cannot be replayed later. */
const TOLERANCE_SECONDS = 5 * 60;

export async function verifyWebhook<T = unknown>(
  headers: Headers | Record<string, string | undefined>,
  rawBody: string,
  secret: string | string[],
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<T> {
  const get = (name: string) =>
    (headers instanceof Headers ? headers.get(name) : (headers[name] ?? headers[name.toLowerCase()])) ?? null;
  const id = get("webhook-id");
  const timestamp = get("webhook-timestamp");
  const signatures = get("webhook-signature");
  if (!id || !timestamp || !signatures)
    throw new WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature");
  const ts = Number(timestamp);
  if (!Number.isInteger(ts) || Math.abs(nowSeconds - ts) > TOLERANCE_SECONDS)
    throw new WebhookVerificationError("timestamp outside the tolerance");
  const signed = new TextEncoder().encode(`${id}.${timestamp}.${rawBody}`);
  const given = signatures.split(" ").flatMap((s) => (s.startsWith("v1,") ? [s.slice(3)] : []));
  for (const candidate of Array.isArray(secret) ? secret : [secret]) {
    const key = await crypto.subtle.importKey("raw", secretBytes(candidate), { name: "HMAC", hash: "SHA-256" }, false, [
      "verify",
    ]);
    for (const sig of given) {
      const bytes = fromBase64(sig);
      if (bytes && (await crypto.subtle.verify("HMAC", key, bytes, signed))) return JSON.parse(rawBody) as T;
    }
  }
  throw new WebhookVerificationError("no signature matches");
}

function secretBytes(secret: string): Uint8Array<ArrayBuffer> {
  const b = fromBase64(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret);
  if (!b) throw new WebhookVerificationError("the secret is not whsec_<base64>");
  return b;
}

function fromBase64(s: string): Uint8Array<ArrayBuffer> | null {
  try {
    return Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

/**
 * Verifies a job's receipt (`GET /v1/jobs/{id}/result` → `receipt`, docs/api.md "Receipts"): the same
 * signature as a webhook's, over its payload, with the account's webhook secret. Unlike a delivery, a
 * receipt is a record, not a request to act on: it is checked at the time it was issued, so one kept
 * for months still verifies. Throws WebhookVerificationError; returns the parsed receipt.
 */
export function verifyReceipt<T = unknown>(
  receipt: { payload: string; headers: Record<string, string> },
  secret: string | string[],
): Promise<T> {
  return verifyWebhook<T>(receipt.headers, receipt.payload, secret, Number(receipt.headers["webhook-timestamp"]));
}
