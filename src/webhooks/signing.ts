/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the signature is
 * base64(HMAC-SHA256(secret bytes, "<id>.<timestamp>.<body>")), sent as "v1,<sig>"; several
 * signatures (during a secret rotation) are separated by spaces.
 */
export const SECRET_PREFIX = "whsec_";
const SECRET_BYTES = 32;

export function generateWebhookSecret(): string {
  return SECRET_PREFIX + toBase64(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)));
}

export async function signature(secret: string, id: string, timestampSeconds: number, body: string): Promise<string> {
  const keyBytes = fromBase64(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret);
  const key = await crypto.subtle.importKey("raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${id}.${timestampSeconds}.${body}`));
  return `v1,${toBase64(new Uint8Array(mac))}`;
}

/** The three Standard Webhooks headers, signed with every secret currently valid. */
export async function signedHeaders(
  secrets: string[],
  id: string,
  timestampSeconds: number,
  body: string,
): Promise<Record<string, string>> {
  const sigs = await Promise.all(secrets.map((s) => signature(s, id, timestampSeconds, body)));
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": sigs.join(" "),
  };
}

/** Enough to recognise a secret, never enough to use it: "whsec_" + mask + last 4 characters. */
export function secretPreview(secret: string): string {
  return `${SECRET_PREFIX}${"*".repeat(8)}${secret.slice(-4)}`;
}

function toBase64(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}
