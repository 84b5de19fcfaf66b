import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { platformReportSchema } from "../../src/runner/platform-report.ts";
import { api, createAccount } from "./helpers.ts";

/**
 * POST /v1/admin/platform-report through the real Worker and the real local runner: only an operator's
 * key, only a public name, and the runner's answer checked against the schema the API documents.
 */
let operator: string;
let user: string;
beforeAll(async () => {
  const o = await createAccount();
  await env.DB.prepare("UPDATE accounts SET operator = 1 WHERE id = ?1").bind(o.accountId).run();
  operator = o.key;
  user = (await createAccount()).key;
});

const report = (key: string | null, body: unknown = {}) => api(key, "POST", "/v1/admin/platform-report", body);

describe("the platform report", () => {
  it("answers only an operator's key", async () => {
    expect((await report(null)).status).toBe(401);
    const refused = await report(user);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: "FORBIDDEN", error: expect.stringMatching(/operator/) });
    // One guard for every operator route, the metrics' too.
    expect((await api(user, "GET", "/v1/admin/metrics")).status).toBe(403);
  });

  it("asks a runner, and answers what it saw in the documented shape, with what the Worker knows", async () => {
    const { status, body } = await report(operator, { publicHost: "media.example.org" });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(platformReportSchema.parse(body)).toEqual(body);
    expect(body).toMatchObject({
      runnerMode: "local",
      egress: "direct",
      publicHost: "media.example.org",
      sandbox: { requested: "on" },
    });
    // A local runner connects by itself: nothing is looked up or tried, and it says so.
    expect(body.dns.map((l: any) => [l.name, l.role, l.outcome])).toEqual([
      ["media.example.org", "public", "not-applicable"],
      ["runner-notify.ffjobs.internal", "internal", "not-applicable"],
      ["runner-files.ffjobs.internal", "internal", "not-applicable"],
    ]);
    expect(body.connections.map((c: any) => c.outcome)).toEqual(["not-applicable", "not-applicable", "not-applicable"]);
    // These tests' Worker gives runners no notification URL (RUNNER_NOTIFY_BASE_URL unset).
    expect(body.notification).toMatchObject({ outcome: "not-configured" });
    expect((await report(operator)).body.publicHost).toBe("example.com");
  });

  it("runs one at a time in the whole deployment, each holding a container: another is a 429 with Retry-After until it ends (found by an attack pass)", async () => {
    // A report in flight (another operator's, or one whose request died: its lease runs out by itself).
    const slots = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName("platform-report"));
    expect((await slots.acquire(1, 60_000, "in-flight")).taken).toBe(true);
    const busy = await report(operator);
    expect(busy.status).toBe(429);
    expect(busy.body).toMatchObject({ code: "RATE_LIMITED", error: expect.stringMatching(/already running/) });
    expect(Number(busy.headers.get("retry-after"))).toBeGreaterThan(50);
    await slots.release("in-flight");
    // A burst: each either ran or was told to wait, and the slot is free again after.
    const burst = await Promise.all(Array.from({ length: 12 }, () => report(operator)));
    const statuses = burst.map((r) => r.status);
    expect(
      statuses.every((s) => s === 200 || s === 429),
      statuses.join(),
    ).toBe(true);
    expect(statuses).toContain(200);
    expect(statuses).toContain(429);
    expect((await report(operator)).status).toBe(200);
  });

  it("takes only a public DNS name, which it hands to the runner", async () => {
    for (const publicHost of [
      "localhost",
      "10.0.0.7",
      "[::1]",
      "169.254.169.254",
      "metadata.google.internal",
      "printer.local",
      "Example.com",
      "example.com.",
      `${"a".repeat(64)}.com`,
      42,
    ]) {
      const res = await report(operator, { publicHost });
      expect(res.status, String(publicHost)).toBe(400);
      expect(res.body.details[0].path).toEqual(["publicHost"]);
    }
    expect((await report(operator, { publicHost: "example.com", url: "http://10.0.0.7/" })).status).toBe(400);
  });
});
