import { toBase64Url } from "../encoding/base64url.ts";
/** API keys: random, prefixed so they are recognisable in logs and scanners, stored only as a hash. */
export const API_KEY_PREFIX = "ffj_";
const API_KEY_PATTERN = /^ffj_[A-Za-z0-9_-]{43}$/;
const KEY_RANDOM_BYTES = 32;

export function generateApiKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(KEY_RANDOM_BYTES));
  return API_KEY_PREFIX + toBase64Url(bytes);
}

export function looksLikeApiKey(value: string): boolean {
  return API_KEY_PATTERN.test(value);
}

/** SHA-256 is enough here: the key has 256 bits of entropy, so there is nothing to brute-force. */
export async function hashApiKey(key: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The part of a key safe to show and store in the clear, to tell keys apart. */
export function displayPrefix(key: string): string {
  return key.slice(0, API_KEY_PREFIX.length + 6);
}
