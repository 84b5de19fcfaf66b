import type { Resolution, Resolver } from "./destination-check.ts";

/*
 * The Worker's DNS answers for a container's egress, kept per job while their TTL lasts, so a URL
 * input read in many range windows (one outbound-handler invocation each) costs one lookup (A +
 * AAAA) per host per TTL, not one per window (docs/capacity.md, "Reading an input by range").
 *
 * - Per job: the key is the job (the runner id its egress scope was admitted for) and the host. A
 *   job never gets another job's answer, so it cannot learn from a hit which hosts other jobs read,
 *   and nothing another job's lookup put here decides its check.
 * - Per isolate: module scope is the only memory a Worker's invocations share for free; an
 *   invocation that lands on another isolate looks the name up once there too, so a job costs at
 *   most hosts × TTL periods × isolates lookups. A shared store (KV, a Durable Object) would cost a
 *   request per window, the very thing this saves.
 * - Only answers with addresses are kept (private ones too: the check still runs on every request
 *   against the kept addresses, so such a host is refused each time). NXDOMAIN, an empty answer or
 *   a failed lookup is not kept: the runner opens every input before the run, so a job that meets
 *   one fails at once and keeping it saves nothing, while a record created a moment ago or a
 *   resolver's hiccup must not outlive the lookup that saw it.
 * - In-flight lookups are not shared between invocations: workerd binds a promise's I/O to the
 *   request that started it, and another request awaiting it could wait forever if the first ended.
 *   The runner asks for the next window only once the current one streams, long after its lookup
 *   settled, so concurrent misses are rare and cost one extra lookup at most.
 */

/** Answers are kept at least this long (TTL 0-1 s is common behind load balancers): at most one lookup per job and host every 5 s. */
export const RESOLUTION_MIN_TTL_MS = 5_000;
/** And at most this long, whatever their TTL: a host whose records change (to a private address, say) is checked anew within 5 min. */
export const RESOLUTION_MAX_TTL_MS = 300_000;
/** The cache's size in one isolate (estimated heap bytes of keys and addresses); the least recently used entries go first. */
export const RESOLUTION_CACHE_MAX_BYTES = 1024 * 1024;
/** A Map entry, its key string and its record object, roughly, on top of the characters (2 bytes each). */
const ENTRY_OVERHEAD_BYTES = 128;
const BYTES_PER_CHAR = 2;

type Entry = { addresses: readonly string[]; expiresAtMs: number; bytes: number };

export type ResolutionCache = {
  /** `resolve` for one job: answered from the cache while the job's answer for that host lasts. */
  resolverFor: (jobKey: string, resolve: Resolver) => Resolver;
  stats: () => { entries: number; bytes: number };
};

/** `nowMs` is injected so tests can run a TTL period in no time. */
export function createResolutionCache(
  nowMs: () => number = Date.now,
  maxBytes: number = RESOLUTION_CACHE_MAX_BYTES,
): ResolutionCache {
  /** Insertion order is use order: the first key is the least recently used. */
  const entries = new Map<string, Entry>();
  let bytes = 0;
  const drop = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    bytes -= entry.bytes;
    entries.delete(key);
  };
  const keep = (key: string, addresses: readonly string[], ttlSeconds: number | undefined) => {
    // Only what a resolver should give is kept, whatever one gives (found by an attack pass): a TTL that is
    // no finite number counts as none (the least time), and an answer of anything but text is not kept,
    // since its size would be NaN and the bound with it.
    if (!addresses.every((a) => typeof a === "string")) return;
    const ttl = typeof ttlSeconds === "number" && Number.isFinite(ttlSeconds) ? ttlSeconds : 0;
    const ttlMs = Math.min(RESOLUTION_MAX_TTL_MS, Math.max(RESOLUTION_MIN_TTL_MS, ttl * 1000));
    const size = ENTRY_OVERHEAD_BYTES + BYTES_PER_CHAR * (key.length + addresses.reduce((n, a) => n + a.length, 0));
    drop(key);
    if (size > maxBytes) return;
    while (bytes + size > maxBytes) drop(entries.keys().next().value as string);
    entries.set(key, { addresses: [...addresses], expiresAtMs: nowMs() + ttlMs, bytes: size });
    bytes += size;
  };
  return {
    resolverFor:
      (jobKey, resolve) =>
      async (host: string): Promise<Resolution> => {
        const key = `${jobKey}\n${host}`;
        const hit = entries.get(key);
        if (hit && hit.expiresAtMs > nowMs()) {
          entries.delete(key);
          entries.set(key, hit);
          return { addresses: [...hit.addresses] };
        }
        drop(key);
        const answer = await resolve(host);
        if ("addresses" in answer && answer.addresses.length > 0) keep(key, answer.addresses, answer.ttlSeconds);
        return answer;
      },
    stats: () => ({ entries: entries.size, bytes }),
  };
}

/** What the outbound handler knows of an invocation (`OutboundHandlerContext` of @cloudflare/containers). */
export type EgressInvocation = { containerId: string; params?: { jobId?: string } };

/**
 * The job an egress invocation serves: its scope's `jobId` (src/runner/egress-scope.ts), else the
 * container (a scope stored before scopes named their job; the next admission replaces it).
 */
export function resolutionJobKey(ctx: EgressInvocation): string {
  return ctx.params?.jobId ? `job:${ctx.params.jobId}` : `container:${ctx.containerId}`;
}

/** This isolate's cache: it lives as long as the isolate does. */
const isolateCache = createResolutionCache();

/** Production's resolver for one egress invocation: `resolve`, behind this isolate's cache for the invocation's job. */
export function jobResolver(ctx: EgressInvocation, resolve: Resolver, cache: ResolutionCache = isolateCache): Resolver {
  return cache.resolverFor(resolutionJobKey(ctx), resolve);
}
