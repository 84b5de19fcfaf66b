import { fromBase64Url, toBase64Url } from "../encoding/base64url.ts";

/**
 * Signed tokens for the Worker's own storage URLs (a directory output's files, the runner's uploads
 * of them): `<expiry seconds>.<HMAC-SHA256, base64url>` over the purpose, job, output and expiry. The
 * key is derived from the R2 secret the presigned S3 URLs already depend on, so rotating that key
 * revokes both kinds of URL alike and an operator has no second secret to keep; a local stack,
 * whose R2 secret is miniflare's public constant, sets STORAGE_TOKEN_SECRET (random per run) instead.
 */
export type TokenPurpose = "read" | "write";
/** The part of the storage settings the key comes from (Config["storage"] has it). */
export type TokenSecrets = { secretAccessKey?: string; tokenSecret?: string };

const keys = new WeakMap<TokenSecrets, Promise<CryptoKey>>();
const encoder = new TextEncoder();

function signingKey(storage: TokenSecrets): Promise<CryptoKey> {
  let key = keys.get(storage);
  if (!key) {
    const secret = storage.tokenSecret ?? storage.secretAccessKey;
    if (!secret) throw new Error("R2_SECRET_ACCESS_KEY must be set to issue storage URLs");
    key = (async () => {
      const root = await crypto.subtle.importKey(
        "raw",
        encoder.encode(secret),
        { name: "HMAC", hash: "SHA-256" },
        false,
        ["sign"],
      );
      const derived = await crypto.subtle.sign("HMAC", root, encoder.encode("ffjobs storage-url key v1"));
      return crypto.subtle.importKey("raw", derived, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
    })();
    keys.set(storage, key);
  }
  return key;
}

const message = (purpose: TokenPurpose, jobId: string, name: string, expires: number) =>
  encoder.encode(`${purpose}\n${jobId}\n${name}\n${expires}`);

export async function signToken(
  storage: TokenSecrets,
  purpose: TokenPurpose,
  jobId: string,
  name: string,
  expiresAtMs: number,
): Promise<string> {
  const expires = Math.floor(expiresAtMs / 1000);
  const sig = await crypto.subtle.sign("HMAC", await signingKey(storage), message(purpose, jobId, name, expires));
  return `${expires}.${toBase64Url(new Uint8Array(sig))}`;
}

/** Constant-time (crypto.subtle.verify); an expired or malformed token is as invalid as a forged one. */
export async function verifyToken(
  storage: TokenSecrets,
  purpose: TokenPurpose,
  jobId: string,
  name: string,
  token: string,
  nowMs: number,
): Promise<boolean> {
  const m = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m || Number(m[1]) * 1000 < nowMs) return false;
  return crypto.subtle.verify(
    "HMAC",
    await signingKey(storage),
    fromBase64Url(m[2]),
    message(purpose, jobId, name, Number(m[1])),
  );
}
