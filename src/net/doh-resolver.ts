import { parseIPv4, parseIPv6 } from "./address-policy.ts";
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
    const res = await fetchFn(url, {
      headers: { accept: "application/dns-json" },
      signal: AbortSignal.timeout(RESOLVE_TIMEOUT_MS),
    });
    if (!res.ok) throw new Error(`resolver answered HTTP ${res.status}`);
    return (await res.json()) as DohAnswer;
  };
  return async (name: string): Promise<Resolution> => {
    const settled = await Promise.allSettled([ask(name, "A"), ask(name, "AAAA")]);
    const rejected = settled.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (rejected)
      return {
        error: "failed",
        detail: rejected.reason instanceof Error ? rejected.reason.message : String(rejected.reason),
      };
    const answers = settled.map((r) => (r as PromiseFulfilledResult<DohAnswer>).value);
    const malformed = answers.find((a) => !isDohAnswer(a));
    if (malformed !== undefined)
      return {
        error: "failed",
        detail: `the resolver answered a malformed record: ${JSON.stringify(malformed)?.slice(0, 100)}`,
      };
    if (answers.every((a) => a.Status === STATUS_NXDOMAIN)) return { error: "nxdomain", detail: "NXDOMAIN" };
    const failed = answers.find((a) => a.Status !== STATUS_NOERROR && a.Status !== STATUS_NXDOMAIN);
    if (failed) return { error: "failed", detail: `resolver status ${failed.Status}` };
    const addresses = answers.flatMap((a) =>
      (a.Answer ?? []).filter((r) => r.type === TYPE_A || r.type === TYPE_AAAA).map((r) => r.data),
    );
    const ttls = answers
      .flatMap((a) => (a.Answer ?? []).map((r) => r.TTL))
      .filter((t): t is number => typeof t === "number" && Number.isFinite(t) && t >= 0);
    return ttls.length ? { addresses, ttlSeconds: Math.min(...ttls) } : { addresses };
  };
}

/**
 * The resolver's JSON is taken only in the shape its API documents: an answer list, each A record an
 * IPv4 address and each AAAA an IPv6 one, as text. Anything else fails the lookup (refused, fail closed)
 * rather than reach the address check and the cache: a number or an object as an A record's data made
 * the check throw and the cache lose its size bound (found by an attack pass).
 */
function isDohAnswer(a: unknown): a is DohAnswer {
  if (typeof a !== "object" || a === null || Array.isArray(a)) return false;
  const { Answer } = a as DohAnswer;
  if (Answer === undefined) return true;
  return (
    Array.isArray(Answer) && Answer.every((r) => typeof r === "object" && r !== null && isRecordData(r.type, r.data))
  );
}

function isRecordData(type: unknown, data: unknown): boolean {
  if (type === TYPE_A) return typeof data === "string" && parseIPv4(data) !== null;
  if (type === TYPE_AAAA) return typeof data === "string" && parseIPv6(data) !== null;
  return true;
}
