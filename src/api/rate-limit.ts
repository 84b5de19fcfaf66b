import { DurableObject } from "cloudflare:workers";

/** A token bucket: `capacity` requests at once, refilled evenly over a minute. */
export type Bucket = { tokens: number; updatedMs: number };
export type TakeResult = { allowed: boolean; retryAfterSeconds: number; bucket: Bucket };

export function takeToken(bucket: Bucket | null, nowMs: number, perMinute: number): TakeResult {
  const refillPerMs = perMinute / 60_000;
  const current = bucket ?? { tokens: perMinute, updatedMs: nowMs };
  const tokens = Math.min(perMinute, current.tokens + (nowMs - current.updatedMs) * refillPerMs);
  if (tokens >= 1) return { allowed: true, retryAfterSeconds: 0, bucket: { tokens: tokens - 1, updatedMs: nowMs } };
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / refillPerMs / 1000)), bucket: { tokens, updatedMs: nowMs } };
}

/**
 * One per API key: holds its bucket in memory (an evicted limiter starts full again, which errs on
 * the side of the client). Single-threaded, so concurrent requests cannot both take the last token.
 */
export class RateLimiter extends DurableObject {
  #bucket: Bucket | null = null;

  async take(perMinute: number): Promise<{ allowed: boolean; retryAfterSeconds: number }> {
    const r = takeToken(this.#bucket, Date.now(), perMinute);
    this.#bucket = r.bucket;
    return { allowed: r.allowed, retryAfterSeconds: r.retryAfterSeconds };
  }
}
