import { describe, expect, it } from "vitest";
import { destinationRefusal, type Resolution, type Resolver } from "../../src/net/destination-check.ts";
import { dohResolver } from "../../src/net/doh-resolver.ts";
import {
  createResolutionCache,
  jobResolver,
  resolutionJobKey,
  RESOLUTION_MAX_TTL_MS,
  RESOLUTION_MIN_TTL_MS,
} from "../../src/net/resolution-cache.ts";
import { mergeScopes } from "../../src/runner/egress-scope.ts";

/**
 * The Worker's per-job cache of DNS answers for container egress (src/net/resolution-cache.ts):
 * what it keeps, for how long, for whom, and that the address check still runs on every request.
 */
function world(answers: Record<string, Resolution>) {
  let nowMs = 1_000_000;
  const asked: string[] = [];
  const cache = createResolutionCache(() => nowMs);
  const resolve: Resolver = async (host) => {
    asked.push(host);
    return answers[host] ?? { error: "nxdomain", detail: "NXDOMAIN" };
  };
  return {
    cache,
    resolve,
    asked,
    answers,
    advance: (ms: number) => (nowMs += ms),
    forJob: (job: string) => cache.resolverFor(job, resolve),
  };
}

describe("the resolution cache", () => {
  it("answers a job's host from the cache while its TTL lasts, then asks again", async () => {
    const w = world({ "media.example": { addresses: ["93.184.216.34"], ttlSeconds: 60 } });
    const job = w.forJob("job:a");
    expect(await job("media.example")).toMatchObject({ addresses: ["93.184.216.34"] });
    w.advance(59_999);
    expect(await job("media.example")).toEqual({ addresses: ["93.184.216.34"] });
    await job("media.example");
    expect(w.asked).toHaveLength(1);
    w.advance(1);
    await job("media.example");
    expect(w.asked).toHaveLength(2);
  });

  it("keeps an answer at least 5 s (TTL 0, or none) and at most 5 min (TTL of a day)", async () => {
    for (const [ttlSeconds, keptMs] of [
      [0, RESOLUTION_MIN_TTL_MS],
      [undefined, RESOLUTION_MIN_TTL_MS],
      [86_400, RESOLUTION_MAX_TTL_MS],
    ] as const) {
      const w = world({
        "h.example": { addresses: ["93.184.216.34"], ...(ttlSeconds === undefined ? {} : { ttlSeconds }) },
      });
      const job = w.forJob("job:a");
      await job("h.example");
      w.advance(keptMs - 1);
      await job("h.example");
      expect(w.asked, `TTL ${ttlSeconds}`).toHaveLength(1);
      w.advance(1);
      await job("h.example");
      expect(w.asked, `TTL ${ttlSeconds}`).toHaveLength(2);
    }
    expect([RESOLUTION_MIN_TTL_MS, RESOLUTION_MAX_TTL_MS]).toEqual([5_000, 300_000]);
  });

  it("never hands one job another job's answer, nor one host's answer for another", async () => {
    const w = world({
      "a.example": { addresses: ["93.184.216.34"], ttlSeconds: 300 },
      "b.example": { addresses: ["93.184.216.35"], ttlSeconds: 300 },
    });
    await w.forJob("job:1")("a.example");
    await w.forJob("job:2")("a.example");
    await w.forJob("job:1")("b.example");
    await w.forJob("job:1")("a.example");
    expect(w.asked).toEqual(["a.example", "a.example", "b.example"]);
  });

  it("keeps no NXDOMAIN, empty answer or failure: the next request asks again", async () => {
    const w = world({
      "empty.example": { addresses: [], ttlSeconds: 300 },
      "broken.example": { error: "failed", detail: "resolver answered HTTP 503" },
    });
    const job = w.forJob("job:a");
    for (const host of ["gone.example", "empty.example", "broken.example"]) {
      expect(await job(host)).toEqual(await w.resolve(host));
      await job(host);
    }
    expect(w.asked).toEqual([
      "gone.example",
      "gone.example",
      "gone.example",
      "empty.example",
      "empty.example",
      "empty.example",
      "broken.example",
      "broken.example",
      "broken.example",
    ]);
    // A name that failed a moment ago resolves as soon as the resolver does.
    w.answers["broken.example"] = { addresses: ["93.184.216.36"] };
    expect(await job("broken.example")).toEqual({ addresses: ["93.184.216.36"] });
  });

  it("still checks every request against the kept addresses, and sees a name turn private once its answer expires", async () => {
    const w = world({
      "sneaky.example": { addresses: ["93.184.216.34", "127.0.0.1"], ttlSeconds: 30 },
      "flip.example": { addresses: ["93.184.216.34"], ttlSeconds: 30 },
    });
    const job = w.forJob("job:a");
    const check = (host: string) => destinationRefusal(new URL(`https://${host}/in.mp4`), job, []);
    expect(await check("sneaky.example")).toMatch(/resolves to 127\.0\.0\.1/);
    expect(await check("sneaky.example")).toMatch(/resolves to 127\.0\.0\.1/);
    expect(await check("flip.example")).toBeNull();
    w.answers["flip.example"] = { addresses: ["10.0.0.5"], ttlSeconds: 30 };
    w.advance(30_000);
    expect(await check("flip.example")).toMatch(/resolves to 10\.0\.0\.5/);
    expect(w.asked).toEqual(["sneaky.example", "flip.example", "flip.example"]);
  });

  it("holds at most its byte bound, dropping the least recently used answers first", async () => {
    const asked: string[] = [];
    const cache = createResolutionCache(() => 0, 2_000);
    const job = cache.resolverFor("job:a", async (host) => {
      asked.push(host);
      return { addresses: ["93.184.216.34"], ttlSeconds: 300 };
    });
    for (let i = 0; i < 50; i++) await job(`h${i}.example`);
    expect(cache.stats().bytes).toBeLessThanOrEqual(2_000);
    const kept = cache.stats().entries;
    expect(kept).toBeGreaterThan(3);
    expect(kept).toBeLessThan(50);
    await job("h49.example"); // the newest is kept
    await job("h0.example"); // the oldest went
    expect(asked.slice(50)).toEqual(["h0.example"]);
  });
});

describe("which job an egress invocation serves", () => {
  it("is the scope's job id, else the container; a union of scopes names all its jobs", () => {
    expect(resolutionJobKey({ containerId: "c1", params: { jobId: "j1" } })).toBe("job:j1");
    expect(resolutionJobKey({ containerId: "c1", params: {} })).toBe("container:c1");
    expect(mergeScopes([{ jobId: "j1", allow: [] }]).jobId).toBe("j1");
    expect(
      mergeScopes([
        { jobId: "j2", allow: [] },
        { jobId: "j1", allow: [] },
      ]).jobId,
    ).toBe("j1 j2");
    expect(mergeScopes([{ allow: [] }])).not.toHaveProperty("jobId");
  });

  it("keys production's resolver by it: the same job's second request is answered from the cache", async () => {
    let lookups = 0;
    const cache = createResolutionCache();
    const doh = dohResolver("https://resolver.test/dns-query", (async () => {
      lookups++;
      return Response.json({ Status: 0, Answer: [{ type: 1, TTL: 60, data: "93.184.216.34" }] });
    }) as typeof fetch);
    const ctx = (jobId: string) => ({ containerId: "pool:1", params: { jobId, allow: [] } });
    await jobResolver(ctx("j1"), doh, cache)("media.example");
    await jobResolver(ctx("j1"), doh, cache)("media.example");
    await jobResolver(ctx("j2"), doh, cache)("media.example");
    expect(lookups).toBe(4); // A and AAAA, once for each job
  });
});
