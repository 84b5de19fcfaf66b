import { DurableObject } from "cloudflare:workers";
import { takeToken, type Bucket } from "./token-bucket.ts";
import { takeSlot, type Leases } from "./concurrency-slots.ts";
import { countEachInvocation } from "../platform/counted-durable-object.ts";

/** Requests that create or change something (they cost: jobs, uploads, webhook sends) and reads (cheap). */
export type RequestKind = "write" | "read" | "probe";

/**
 * One per API key: holds one bucket per kind in memory (an evicted limiter starts full again, which
 * errs on the side of the client). Single-threaded, so concurrent requests cannot both take the
 * last token. Reads have their own, much larger budget, so clients that poll, wait or stream are
 * not stopped by the limit on what costs.
 */
export class RateLimiter extends DurableObject {
  static {
    countEachInvocation(RateLimiter);
  }

  #buckets = new Map<RequestKind, Bucket>();
  #leases: Leases = new Map();

  async take(perMinute: number, kind: RequestKind = "write"): Promise<{ allowed: boolean; retryAfterSeconds: number }> {
    const r = takeToken(this.#buckets.get(kind) ?? null, Date.now(), perMinute);
    this.#buckets.set(kind, r.bucket);
    return { allowed: r.allowed, retryAfterSeconds: r.retryAfterSeconds };
  }

  /** A slot of at most `max` held at once (an account's running probes); `release` gives it back. */
  async acquire(max: number, leaseMs: number, id: string): Promise<{ taken: boolean; retryAfterSeconds: number }> {
    return takeSlot(this.#leases, Date.now(), max, leaseMs, id);
  }

  async release(id: string): Promise<void> {
    this.#leases.delete(id);
  }
}
