import type { Resolution, Resolver } from "./destination-check.ts";

/** Cloudflare's public resolver, JSON form of DNS over HTTPS; the Worker's own fetch resolves the same public names. */
export const DEFAULT_DOH_URL = "https://cloudflare-dns.com/dns-query";
const RESOLVE_TIMEOUT_MS = 5_000;
const TYPE_A = 1;
const TYPE_AAAA = 28;
const STATUS_NOERROR = 0;
const STATUS_NXDOMAIN = 3;

type DohAnswer = { Status: number; Answer?: { type: number; data: string; TTL?: number }[] };

/**
 * A Worker has no resolver of its own: it asks a DNS-over-HTTPS endpoint (the JSON API:
 * `GET ?name=N&type=A|AAAA`, `accept: application/dns-json`; developers.cloudflare.com/1.1.1.1/
 * encryption/dns-over-https/make-api-requests/dns-json/) for both record types. CNAMEs are
 * followed by the resolver; only the A and AAAA records of the answer count. The answer's TTL is
 * the least of all its records' (a CNAME in the chain expires the addresses behind it too); what
 * to do with it is the caller's (src/net/resolution-cache.ts), so this stays one lookup per call.
 */
export function dohResolver(endpoint: string, fetchFn: typeof fetch = fetch): Resolver {
  const ask = async (name: string, type: "A" | "AAAA"): Promise<DohAnswer> => {
    const url = new URL(endpoint);
    url.searchParams.set("name", name);
    url.searchParams.set("type", type);
    const res = await fetchFn(url, { headers: { accept: "application/dns-json" }, signal: AbortSignal.timeout(RESOLVE_TIMEOUT_MS) });
    if (!res.ok) throw new Error(`resolver answered HTTP ${res.status}`);
    return (await res.json()) as DohAnswer;
  };
  return async (name: string): Promise<Resolution> => {
    const settled = await Promise.allSettled([ask(name, "A"), ask(name, "AAAA")]);
    const rejected = settled.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (rejected) return { error: "failed", detail: rejected.reason instanceof Error ? rejected.reason.message : String(rejected.reason) };
    const answers = settled.map((r) => (r as PromiseFulfilledResult<DohAnswer>).value);
    if (answers.every((a) => a.Status === STATUS_NXDOMAIN)) return { error: "nxdomain", detail: "NXDOMAIN" };
    const failed = answers.find((a) => a.Status !== STATUS_NOERROR && a.Status !== STATUS_NXDOMAIN);
    if (failed) return { error: "failed", detail: `resolver status ${failed.Status}` };
    const addresses = answers.flatMap((a) => (a.Answer ?? []).filter((r) => r.type === TYPE_A || r.type === TYPE_AAAA).map((r) => r.data));
    const ttls = answers.flatMap((a) => (a.Answer ?? []).map((r) => r.TTL)).filter((t): t is number => typeof t === "number" && Number.isFinite(t) && t >= 0);
    return ttls.length ? { addresses, ttlSeconds: Math.min(...ttls) } : { addresses };
  };
}
