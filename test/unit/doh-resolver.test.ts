import { describe, expect, it } from "vitest";
import { dohResolver } from "../../src/net/doh-resolver.ts";

describe("the DNS-over-HTTPS resolver (JSON API)", () => {
  const doh = (answers: Record<string, unknown>) => {
    const asked: string[] = [];
    const resolve = dohResolver("https://resolver.test/dns-query", (async (
      input: URL | RequestInfo,
      init?: RequestInit,
    ) => {
      const url = new URL(String(input));
      asked.push(
        `${url.searchParams.get("name")} ${url.searchParams.get("type")} ${new Headers(init?.headers).get("accept")}`,
      );
      const answer = answers[url.searchParams.get("type")!];
      return answer === 500 ? new Response("", { status: 500 }) : Response.json(answer);
    }) as typeof fetch);
    return { resolve, asked };
  };

  it("asks for A and AAAA and keeps only address records (CNAMEs are followed by the resolver)", async () => {
    const { resolve, asked } = doh({
      A: {
        Status: 0,
        Answer: [
          { type: 5, data: "cdn.example.com." },
          { type: 1, data: "93.184.216.34" },
        ],
      },
      AAAA: { Status: 0, Answer: [{ type: 28, data: "2606:2800:220:1::1" }] },
    });
    expect(await resolve("media.example.com")).toEqual({ addresses: ["93.184.216.34", "2606:2800:220:1::1"] });
    expect(asked.sort()).toEqual([
      "media.example.com A application/dns-json",
      "media.example.com AAAA application/dns-json",
    ]);
  });

  it("says NXDOMAIN, and fails on a server error or another status", async () => {
    expect(await doh({ A: { Status: 3 }, AAAA: { Status: 3 } }).resolve("x.example")).toMatchObject({
      error: "nxdomain",
    });
    expect(await doh({ A: { Status: 2 }, AAAA: { Status: 0 } }).resolve("x.example")).toMatchObject({
      error: "failed",
    });
    expect(await doh({ A: 500, AAAA: { Status: 0 } }).resolve("x.example")).toMatchObject({ error: "failed" });
  });
});

describe("the DoH resolver's TTL", () => {
  const resolverWith = (answers: Record<string, unknown>) =>
    dohResolver("https://resolver.test/dns-query", (async (input: URL | RequestInfo) =>
      Response.json(answers[new URL(String(input)).searchParams.get("type")!])) as typeof fetch);

  it("is the least TTL of every record in both answers, the CNAME chain's included", async () => {
    const resolve = resolverWith({
      A: {
        Status: 0,
        Answer: [
          { type: 5, TTL: 20, data: "cdn.example." },
          { type: 1, TTL: 300, data: "93.184.216.34" },
        ],
      },
      AAAA: { Status: 0, Answer: [{ type: 28, TTL: 120, data: "2606:2800:220:1::1" }] },
    });
    expect(await resolve("media.example")).toEqual({
      addresses: ["93.184.216.34", "2606:2800:220:1::1"],
      ttlSeconds: 20,
    });
  });

  it("is absent when no record carries one", async () => {
    expect(
      await resolverWith({ A: { Status: 0, Answer: [{ type: 1, data: "93.184.216.34" }] }, AAAA: { Status: 0 } })(
        "m.example",
      ),
    ).toEqual({ addresses: ["93.184.216.34"] });
  });
});
