import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { app } from "../../src/api/app.ts";
import { createAccount } from "./helpers.ts";

describe("request rate per API key", () => {
  it("answers 429 RATE_LIMITED with Retry-After once a key's budget for writes is spent, without touching other keys or its reads", async () => {
    const limited = { ...env, RATE_LIMIT_PER_MINUTE: "3", READ_RATE_LIMIT_PER_MINUTE: "5" };
    const { key } = await createAccount();
    const call = (k: string, method = "POST") =>
      app.fetch(
        new Request(`https://ffjobs.test/v1/${method === "GET" ? "jobs" : "files"}`, {
          method,
          headers: { Authorization: `Bearer ${k}`, "Content-Type": "application/json" },
          body: method === "GET" ? undefined : JSON.stringify({ fileName: "a.mp4", contentType: "video/mp4" }),
        }),
        limited,
      );
    for (let i = 0; i < 3; i++) expect((await call(key)).status).toBe(201);
    const refused = await call(key);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toEqual({ error: expect.stringMatching(/retry in \d+ s/), code: "RATE_LIMITED" });
    // Reads (polls, waits, event streams) have a budget of their own.
    for (let i = 0; i < 5; i++) expect((await call(key, "GET")).status).toBe(200);
    expect((await call(key, "GET")).status).toBe(429);
    const other = await createAccount();
    expect((await call(other.key)).status).toBe(201);
  });
});
