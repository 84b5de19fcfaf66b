import { DurableObject } from "cloudflare:workers";
import { takeToken, type Bucket } from "./token-bucket.ts";

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
