import { createMessageBatch, createExecutionContext, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../src/index.ts";
import { insertDelivery } from "../../src/webhooks/delivery-store.ts";
import { getSecrets } from "../../src/webhooks/secret-store.ts";
import { sendWebhook } from "../../src/webhooks/send-webhook.ts";
import { api, createAccount, insertQueuedJob, isTerminalJob, mediaUrl, waitForJob, webhookMailbox } from "./helpers.ts";

let account: { accountId: string; key: string };
let secret: string;
beforeAll(async () => {
  account = await createAccount();
  secret = (await api(account.key, "GET", "/v1/webhooks/secret")).body.secret;
});

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`gave up waiting; last: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const deliveriesOf = async (key: string, jobId: string) => (await api(key, "GET", `/v1/webhooks/deliveries?jobId=${jobId}`)).body.data;

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
    expect(res.body).toEqual({ ok: true, status: 204, deliveryId: expect.stringMatching(/^[0-9a-f-]{36}$/), secretPreview: `whsec_********${secret.slice(-4)}` });
    const [received] = await box.received();
    const event = new Webhook(secret).verify(received.body, received.headers) as { type: string; data: unknown; timestamp: string };
    expect(event).toMatchObject({ type: "webhook.test", data: { accountId: account.accountId } });
    expect(received.headers["webhook-id"]).toMatch(/^evt_/);
    const log = (await api(account.key, "GET", "/v1/webhooks/deliveries")).body.data.find((d: { id: string }) => d.id === res.body.deliveryId);
    expect(log).toMatchObject({ eventType: "webhook.test", status: "succeeded", eventId: received.headers["webhook-id"], attempts: [{ httpStatus: 204, errorKind: null }] });
  });

  it("reports a receiver's 500 without its body", async () => {
    const box = webhookMailbox();
    const res = await api(account.key, "POST", "/v1/webhooks/test", { url: box.url("status/500") });
    expect(res.body).toEqual({
      ok: false, status: 500, deliveryId: expect.any(String), secretPreview: expect.stringMatching(/^whsec_\*{8}.{4}$/),
      error: "The receiver answered with an error status",
    });
    expect(JSON.stringify(res.body)).not.toContain("secret receiver text");
    expect((await box.received()).length).toBe(1);
  });

  it("says a URL the policy refuses was refused by policy, and an unreachable one only that it could not be reached; the log says the same", async () => {
    const refused = await api(account.key, "POST", "/v1/webhooks/test", { url: "http://127.0.0.1:9/hook" });
    const blocked = await api(account.key, "POST", "/v1/webhooks/test", { url: "http://169.254.169.254/latest/meta-data" });
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
    const r = await sendWebhook({ url: box.url("slow/2000"), eventId: "evt_1", body: "{}", secrets: [secret] }, { allowedPrivateHosts: ["127.0.0.1"], now: () => new Date(), timeoutMs: 200 });
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
    expect(res.body).toEqual({ error: expect.any(String), code: "INVALID_REQUEST", details: [{ path, message: expect.any(String), code: expect.any(String) }] });
  });
});

describe("job events", () => {
  it("sends job.completed with the job's full form, verifiable with the library", async () => {
    const box = webhookMailbox();
    const created = await api(account.key, "POST", "/v1/jobs", {
      binary: "ffprobe", inputs: { m: { type: "url", url: mediaUrl("clip.mp4") } }, ffmpegArgs: ["-v", "error", "-show_format", "{{m}}"], webhookUrl: box.url(),
      metadata: { customer: "acme", order: "42" },
    });
    const job = await waitForJob(account.key, created.body.id, isTerminalJob);
    const [received] = await until(box.received, (r) => r.length > 0);
    const event = new Webhook(secret).verify(received.body, received.headers) as { type: string; timestamp: string; data: unknown };
    expect(event.type).toBe("job.completed");
    expect(event.data).toEqual(job);
    expect((event.data as { metadata: unknown }).metadata).toEqual({ customer: "acme", order: "42" });
    expect(Date.parse(event.timestamp)).toBeGreaterThanOrEqual(Date.parse(job.finishedAt));
  });

  it("sends job.failed, job.canceled and job.rejected", async () => {
    const failedBox = webhookMailbox();
    const failed = await api(account.key, "POST", "/v1/jobs", { inputs: { m: { type: "url", url: mediaUrl("nope.mp4") } }, ffmpegArgs: ["-i", "{{m}}", "-f", "null", "-"], webhookUrl: failedBox.url() });
    const canceledBox = webhookMailbox();
    const queuedId = await insertQueuedJob(account.accountId);
    await env.DB.prepare("UPDATE jobs SET webhook_url = ?2 WHERE id = ?1").bind(queuedId, canceledBox.url()).run();
    await api(account.key, "POST", `/v1/jobs/${queuedId}/cancel`);
    const broke = await createAccount(0);
    const brokeSecret = (await api(broke.key, "GET", "/v1/webhooks/secret")).body.secret;
    const rejectedBox = webhookMailbox();
    await api(broke.key, "POST", "/v1/jobs", { ffmpegArgs: ["-version"], webhookUrl: rejectedBox.url() });

    const typeOf = async (box: ReturnType<typeof webhookMailbox>, s: string) => {
      const [r] = await until(box.received, (x) => x.length > 0);
      return (new Webhook(s).verify(r.body, r.headers) as { type: string; data: { id: string; status: string; errorCode: string } });
    };
    expect(await typeOf(failedBox, secret)).toMatchObject({ type: "job.failed", data: { id: failed.body.id, status: "failed", errorCode: "INPUT_FETCH_FAILED" } });
    expect(await typeOf(canceledBox, secret)).toMatchObject({ type: "job.canceled", data: { id: queuedId, status: "canceled" } });
    expect(await typeOf(rejectedBox, brokeSecret)).toMatchObject({ type: "job.rejected", data: { status: "rejected", errorCode: "INSUFFICIENT_CREDITS" } });
  });

  it("refuses private webhook URLs at job creation", async () => {
    for (const webhookUrl of ["http://10.0.0.5/hook", "http://localhost:8080/hook", "http://[::1]/hook", "http://167772165/hook"]) {
      const res = await api(account.key, "POST", "/v1/jobs", { ffmpegArgs: ["-version"], webhookUrl });
      expect(res.status, webhookUrl).toBe(400);
      expect(res.body.details).toContainEqual({ path: ["webhookUrl"], message: expect.any(String), code: "custom" });
    }
  });
});

describe("delivery, retries and the log", () => {
  async function queuedCancelWithWebhook(url: string): Promise<string> {
    const id = await insertQueuedJob(account.accountId);
    await env.DB.prepare("UPDATE jobs SET webhook_url = ?2 WHERE id = ?1").bind(id, url).run();
    await api(account.key, "POST", `/v1/jobs/${id}/cancel`);
    return id;
  }

  it("retries a receiver that fails twice: three requests, one webhook-id, three logged attempts", async () => {
    const box = webhookMailbox();
    const jobId = await queuedCancelWithWebhook(box.url("fail/2"));
    const [delivery] = await until(() => deliveriesOf(account.key, jobId), (d) => d[0]?.status === "succeeded");
    const received = await box.received();
    expect(received).toHaveLength(3);
    expect(new Set(received.map((r) => r.headers["webhook-id"]))).toEqual(new Set([delivery.eventId]));
    for (const r of received) new Webhook(secret).verify(r.body, r.headers);
    expect(delivery.attempts.map((a: { httpStatus: number }) => a.httpStatus)).toEqual([500, 500, 200]);
    expect(delivery.attempts.every((a: { latencyMs: number; attemptedAt: string }) => a.latencyMs >= 0 && a.attemptedAt)).toBe(true);
    expect(delivery.attemptCount).toBe(3);
  });

  it("records a delivery as failed after the last attempt to a receiver that always fails", async () => {
    const box = webhookMailbox();
    const jobId = await queuedCancelWithWebhook(box.url("status/503"));
    const [delivery] = await until(() => deliveriesOf(account.key, jobId), (d) => d[0]?.status === "failed");
    expect(delivery.attempts).toHaveLength(4);
    expect(delivery.attempts.every((a: { httpStatus: number; errorKind: string }) => a.httpStatus === 503 && a.errorKind === "http_error")).toBe(true);
    expect(await box.received()).toHaveLength(4);
  });

  it("redelivers under the same event id", async () => {
    const box = webhookMailbox();
    const jobId = await queuedCancelWithWebhook(box.url());
    const [first] = await until(() => deliveriesOf(account.key, jobId), (d) => d[0]?.status === "succeeded");
    const again = await api(account.key, "POST", `/v1/webhooks/deliveries/${first.id}/redeliver`);
    expect(again).toMatchObject({ status: 202, body: { id: first.id, status: "pending" } });
    const received = await until(box.received, (r) => r.length === 2);
    expect(received[1].headers["webhook-id"]).toBe(first.eventId);
    expect(received[1].body).toBe(received[0].body);
    const [after] = await until(() => deliveriesOf(account.key, jobId), (d) => d[0]?.status === "succeeded" && d[0].attempts.length === 2);
    expect(after.attemptCount).toBe(2);
    const stranger = await createAccount();
    expect((await api(stranger.key, "POST", `/v1/webhooks/deliveries/${first.id}/redeliver`)).status).toBe(404);
  });

  it("acks or retries each message on its own, on the schedule, and ends in failed on the last attempt", async () => {
    const id = crypto.randomUUID();
    const box = webhookMailbox();
    await insertDelivery(env.DB, { id, accountId: account.accountId, jobId: null, eventId: "evt_direct", eventType: "job.failed", url: box.url("status/500"), payload: "{}", now: new Date().toISOString() });
    const run = async (attempts: number) => {
      const batch = createMessageBatch("ffjobs-webhooks", [{ id: `m${attempts}`, timestamp: new Date(), attempts, body: { deliveryId: id } }]);
      await worker.queue(batch as MessageBatch<{ deliveryId: string }>, env);
      return getQueueResult(batch, createExecutionContext());
    };
    expect((await run(1)).retryMessages.map((m) => m.msgId)).toEqual(["m1"]);
    expect((await run(4)).explicitAcks).toEqual(["m4"]);
    const delivery = (await env.DB.prepare("SELECT status, attempt_count FROM webhook_deliveries WHERE id = ?1").bind(id).first())!;
    expect(delivery).toEqual({ status: "failed", attempt_count: 2 });
    expect((await run(5)).explicitAcks).toEqual(["m5"]);
    expect(await box.received()).toHaveLength(2);
  });

  it("marks a delivery failed when the queue dead-letters it", async () => {
    const id = crypto.randomUUID();
    await insertDelivery(env.DB, { id, accountId: account.accountId, jobId: null, eventId: "evt_dlq", eventType: "job.failed", url: "https://example.com/x", payload: "{}", now: new Date().toISOString() });
    const batch = createMessageBatch("ffjobs-webhooks-dlq", [{ id: "d", timestamp: new Date(), attempts: 1, body: { deliveryId: id } }]);
    await worker.queue(batch as MessageBatch<{ deliveryId: string }>, env);
    expect((await env.DB.prepare("SELECT status FROM webhook_deliveries WHERE id = ?1").bind(id).first())!.status).toBe("failed");
  });

  it("pages the log and filters it by job", async () => {
    const page1 = (await api(account.key, "GET", "/v1/webhooks/deliveries?limit=2")).body;
    expect(page1.data).toHaveLength(2);
    const page2 = (await api(account.key, "GET", `/v1/webhooks/deliveries?limit=2&cursor=${encodeURIComponent(page1.nextCursor)}`)).body;
    expect(page2.data.map((d: { id: string }) => d.id)).not.toContain(page1.data[0].id);
    expect((await api(account.key, "GET", "/v1/webhooks/deliveries?jobId=nope")).status).toBe(400);
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
