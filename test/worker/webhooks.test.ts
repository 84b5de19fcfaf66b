import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { beforeAll, describe, expect, it } from "vitest";
import { getSecrets } from "../../src/webhooks/secret-store.ts";
import { sendWebhook } from "../../src/webhooks/send-webhook.ts";
import { api, createAccount, webhookMailbox } from "./helpers.ts";

let account: { accountId: string; key: string };
let secret: string;
beforeAll(async () => {
  account = await createAccount();
  secret = (await api(account.key, "GET", "/v1/webhooks/secret")).body.secret;
});

describe("webhook secret", () => {
  it("is whsec_ + base64 of 32 random bytes, stable until rotated", async () => {
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(atob(secret.slice(6))).toHaveLength(32);
    expect((await api(account.key, "GET", "/v1/webhooks/secret")).body.secret).toBe(secret);
  });
});

describe("POST /v1/webhooks/test", () => {
  it("sends a signed webhook.test that the standardwebhooks library verifies, and reports a 2xx", async () => {
    const box = webhookMailbox();
    const res = await api(account.key, "POST", "/v1/webhooks/test", { url: box.url() });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ok: true,
      status: 204,
      deliveryId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      secretPreview: `whsec_********${secret.slice(-4)}`,
    });
    const [received] = await box.received();
    const event = new Webhook(secret).verify(received.body, received.headers) as {
      type: string;
      data: unknown;
      timestamp: string;
    };
    expect(event).toMatchObject({ type: "webhook.test", data: { accountId: account.accountId } });
    expect(received.headers["webhook-id"]).toMatch(/^evt_/);
    const log = (await api(account.key, "GET", "/v1/webhooks/deliveries")).body.data.find(
      (d: { id: string }) => d.id === res.body.deliveryId,
    );
    expect(log).toMatchObject({
      eventType: "webhook.test",
      status: "succeeded",
      eventId: received.headers["webhook-id"],
      attempts: [{ httpStatus: 204, errorKind: null }],
    });
  });

  it("reports a receiver's 500 without its body", async () => {
    const box = webhookMailbox();
    const res = await api(account.key, "POST", "/v1/webhooks/test", { url: box.url("status/500") });
    expect(res.body).toEqual({
      ok: false,
      status: 500,
      deliveryId: expect.any(String),
      secretPreview: expect.stringMatching(/^whsec_\*{8}.{4}$/),
      error: "The receiver answered with an error status",
    });
    expect(JSON.stringify(res.body)).not.toContain("secret receiver text");
    expect((await box.received()).length).toBe(1);
  });

  it("says a URL the policy refuses was refused by policy, and an unreachable one only that it could not be reached; the log says the same", async () => {
    const refused = await api(account.key, "POST", "/v1/webhooks/test", { url: "http://127.0.0.1:9/hook" });
    const blocked = await api(account.key, "POST", "/v1/webhooks/test", {
      url: "http://169.254.169.254/latest/meta-data",
    });
    const alsoBlocked = await api(account.key, "POST", "/v1/webhooks/test", { url: "http://[::ffff:10.0.0.1]/x" });
    for (const r of [refused, blocked, alsoBlocked]) {
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ ok: false, status: 0, deliveryId: expect.any(String) });
    }
    // Whether a connection was refused, failed DNS or timed out stays one answer (no port scanning).
    expect(refused.body.error).toBe("The receiver could not be reached or did not answer in time");
    expect(blocked.body.error).toMatch(/^Refused by policy: .*private or local address.*ALLOWED_PRIVATE_HOSTS/);
    expect(alsoBlocked.body.error).toBe(blocked.body.error);
    const log = await api(account.key, "GET", "/v1/webhooks/deliveries?limit=3");
    const byId = new Map(log.body.data.map((d: any) => [d.id, d.attempts[0]]));
    expect(byId.get(blocked.body.deliveryId)).toMatchObject({ errorKind: "blocked", error: blocked.body.error });
    expect(byId.get(refused.body.deliveryId)).toMatchObject({ errorKind: "no_response", error: refused.body.error });
  });

  it("treats a timeout like any unreachable receiver", async () => {
    const box = webhookMailbox();
    const r = await sendWebhook(
      { url: box.url("slow/2000"), eventId: "evt_1", body: "{}", secrets: [secret] },
      { allowedPrivateHosts: ["127.0.0.1"], now: () => new Date(), timeoutMs: 200 },
    );
    expect(r).toMatchObject({ ok: false, httpStatus: null, errorKind: "no_response" });
  });

  it("counts a redirect as a failure and does not follow it", async () => {
    const box = webhookMailbox();
    const res = await api(account.key, "POST", "/v1/webhooks/test", { url: box.url("status/302") });
    expect(res.body).toMatchObject({ ok: false, status: 302 });
  });

  it.each([
    [{}, ["url"]],
    [{ url: 42 }, ["url"]],
    [{ url: "ftp://example.com/x" }, ["url"]],
    [{ url: "https://user:pw@example.com/x" }, ["url"]],
    [{ url: "https://example.com", extra: 1 }, []],
  ])("answers a malformed body %j with the spec's 400 body", async (body, path) => {
    const res = await api(account.key, "POST", "/v1/webhooks/test", body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: expect.any(String),
      code: "INVALID_REQUEST",
      details: [{ path, message: expect.any(String), code: expect.any(String) }],
    });
  });
});

describe("secret rotation", () => {
  it("signs with both secrets for 24 h, each verifying on its own", async () => {
    const own = await createAccount();
    const before = (await api(own.key, "GET", "/v1/webhooks/secret")).body.secret;
    const rotated = (await api(own.key, "POST", "/v1/webhooks/secret/rotate")).body;
    expect(rotated.secret).not.toBe(before);
    expect(Date.parse(rotated.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(23.9 * 3600 * 1000);
    const box = webhookMailbox();
    await api(own.key, "POST", "/v1/webhooks/test", { url: box.url() });
    const [r] = await box.received();
    expect(r.headers["webhook-signature"].split(" ")).toHaveLength(2);
    new Webhook(rotated.secret).verify(r.body, r.headers);
    new Webhook(before).verify(r.body, r.headers);
    expect(() => new Webhook(`whsec_${btoa("x".repeat(32))}`).verify(r.body, r.headers)).toThrow();
    const dayLater = await getSecrets(env.DB, own.accountId, new Date(Date.now() + 24 * 3600 * 1000 + 1000));
    expect(dayLater.previous).toBeNull();
  });
});
