/**
 * Leases on a small number of slots (an account's probes running at once): a lease is taken if
 * fewer than `max` unexpired ones are held, given back when its work ends, and expires by itself
 * after `leaseMs` so a request that died holding one frees it in bounded time.
 */
export type Leases = Map<string, number>;

export function takeSlot(
  leases: Leases,
  now: number,
  max: number,
  leaseMs: number,
  id: string,
): { taken: boolean; retryAfterSeconds: number } {
  for (const [held, expiresAt] of leases) if (expiresAt <= now) leases.delete(held);
  if (leases.size >= max) {
    const soonest = Math.min(...leases.values());
    return { taken: false, retryAfterSeconds: Math.max(1, Math.ceil((soonest - now) / 1000)) };
  }
  leases.set(id, now + leaseMs);
  return { taken: true, retryAfterSeconds: 0 };
}
