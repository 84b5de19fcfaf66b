import { describe, expect, it } from "vitest";
import { destinationRefusal, type Resolution, type Resolver } from "../../src/net/destination-check.ts";
import { dohResolver } from "../../src/net/doh-resolver.ts";
import { createResolutionCache, RESOLUTION_MAX_TTL_MS, RESOLUTION_MIN_TTL_MS } from "../../src/net/resolution-cache.ts";

/**
 * The container egress's DNS answers from a resolver that lies (found by an attack pass): what the DoH
 * resolver takes from an answer, what the per-job cache keeps, and that the destination check refuses
 * instead of throwing. Before: a record whose data was not a string (a number, an object) reached the
 * cache, whose size became NaN, after which it kept every answer (1,001 entries under a 2,000-byte
 * bound), and the destination check threw a TypeError (the egress handler's 500) instead of refusing.
 */
const doh = (answers: Record<"A" | "AAAA", unknown>) =>
  dohResolver("https://resolver.test/dns-query", (async (input: URL | RequestInfo) =>
    Response.json(answers[new URL(String(input)).searchParams.get("type") as "A" | "AAAA"])) as typeof fetch);
const check = (resolve: Resolver) => destinationRefusal(new URL("https://media.example/in.mp4"), resolve, []);

describe("a DoH resolver that lies", () => {
  it("takes an answer only when every A record holds an IPv4 address and every AAAA an IPv6 one; anything else is a failed lookup, refused", async () => {
    const good = {
      Status: 0,
      Answer: [
        { type: 5, TTL: 30, data: "cdn.example." },
        { type: 1, TTL: 60, data: "93.184.216.34" },
      ],
    };
    expect(
      await doh({ A: good, AAAA: { Status: 0, Answer: [{ type: 28, TTL: 60, data: "2606:2800:220:1::1" }] } })(
        "media.example",
      ),
    ).toEqual({ addresses: ["93.184.216.34", "2606:2800:220:1::1"], ttlSeconds: 30 });
    const none = { Status: 0 };
    for (const record of [
      { type: 1, TTL: 60, data: 123 },
      { type: 1, TTL: 60, data: { address: "93.184.216.34" } },
      { type: 1, TTL: 60, data: ["93.184.216.34"] },
      { type: 1, TTL: 60 },
      { type: 1, TTL: 60, data: "localhost" },
      { type: 1, TTL: 60, data: "93.184.216.34 " },
      { type: 1, TTL: 60, data: "2606:2800:220:1::1" },
      { type: 28, TTL: 60, data: "93.184.216.34" },
      { type: 1, TTL: 60, data: "9".repeat(100_000) },
      null,
      "93.184.216.34",
    ]) {
      const answer = await doh({ A: { Status: 0, Answer: [record] }, AAAA: none })("media.example");
      expect(answer, JSON.stringify(record)?.slice(0, 80)).toMatchObject({
        error: "failed",
        detail: expect.stringMatching(/^the resolver answered a malformed record/),
      });
      expect(await check(doh({ A: { Status: 0, Answer: [record] }, AAAA: none }))).toMatch(
        /^the address of media\.example could not be checked \(the resolver answered a malformed record/,
      );
    }
    for (const answer of [
      { Status: 0, Answer: { type: 1, data: "93.184.216.34" } },
      { Status: "0", Answer: [] },
      null,
      "ok",
      [],
    ]) {
      expect(await doh({ A: answer, AAAA: none })("media.example"), JSON.stringify(answer)).toMatchObject({
        error: "failed",
      });
    }
  });

  it("is asked again at least every 5 min and at most every 5 s, whatever TTL it gives", async () => {
    for (const [TTL, keptMs] of [
      [-5, RESOLUTION_MIN_TTL_MS],
      [1e308, RESOLUTION_MAX_TTL_MS],
      [Number.MAX_SAFE_INTEGER, RESOLUTION_MAX_TTL_MS],
      ["600", RESOLUTION_MIN_TTL_MS],
      [null, RESOLUTION_MIN_TTL_MS],
    ] as const) {
      let asked = 0;
      let now = 0;
      const resolve = dohResolver("https://resolver.test/dns-query", (async () => {
        asked++;
        return Response.json({ Status: 0, Answer: [{ type: 1, TTL, data: "93.184.216.34" }] });
      }) as typeof fetch);
      const job = createResolutionCache(() => now).resolverFor("job:a", resolve);
      await job("h.example");
      now += keptMs - 1;
      await job("h.example");
      now += 1;
      await job("h.example");
      expect(asked, `TTL ${TTL}`).toBe(4); // A and AAAA, twice
    }
  });
});

describe("the resolution cache, fed by any resolver", () => {
  it("keeps its byte bound: an answer of other things than address strings is never kept, and never unbinds it", async () => {
    const cache = createResolutionCache(() => 0, 2_000);
    const liar: Resolver = async () => ({ addresses: [123, { a: 1 }, null] as unknown as string[], ttlSeconds: 300 });
    await cache.resolverFor("job:evil", liar)("x.example");
    expect(cache.stats()).toEqual({ entries: 0, bytes: 0 });
    const job = cache.resolverFor("job:a", async () => ({ addresses: ["93.184.216.34"], ttlSeconds: 300 }));
    for (let i = 0; i < 1000; i++) await job(`h${i}.example`);
    expect(cache.stats().bytes).toBeLessThanOrEqual(2_000);
    expect(cache.stats().entries).toBeLessThan(50);
  });

  it("keeps an answer whose TTL is no number for the least time, never for none", async () => {
    for (const ttlSeconds of [NaN, {} as number, "abc" as unknown as number]) {
      let asked = 0;
      let now = 0;
      const job = createResolutionCache(() => now).resolverFor("job:a", async (): Promise<Resolution> => {
        asked++;
        return { addresses: ["93.184.216.34"], ttlSeconds };
      });
      await job("h.example");
      now += RESOLUTION_MIN_TTL_MS - 1;
      await job("h.example");
      expect(asked, String(ttlSeconds)).toBe(1);
      now += 1;
      await job("h.example");
      expect(asked, String(ttlSeconds)).toBe(2);
    }
  });

  it("refuses, never throws, when a resolver hands the check something that is not an address", async () => {
    const liar: Resolver = async () => ({ addresses: ["93.184.216.34", 2130706433 as unknown as string] });
    expect(await check(liar)).toBe("media.example resolves to 2130706433, which is not a public address");
  });
});
