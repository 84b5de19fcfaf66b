/** A token bucket: `capacity` requests at once, refilled evenly over a minute. */
export type Bucket = { tokens: number; updatedMs: number };
export type TakeResult = { allowed: boolean; retryAfterSeconds: number; bucket: Bucket };

export function takeToken(bucket: Bucket | null, nowMs: number, perMinute: number): TakeResult {
  const refillPerMs = perMinute / 60_000;
  const current = bucket ?? { tokens: perMinute, updatedMs: nowMs };
  const tokens = Math.min(perMinute, current.tokens + (nowMs - current.updatedMs) * refillPerMs);
  if (tokens >= 1) return { allowed: true, retryAfterSeconds: 0, bucket: { tokens: tokens - 1, updatedMs: nowMs } };
  return {
    allowed: false,
    retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / refillPerMs / 1000)),
    bucket: { tokens, updatedMs: nowMs },
  };
}
