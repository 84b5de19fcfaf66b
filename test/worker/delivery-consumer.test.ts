import { createMessageBatch, createExecutionContext, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../src/index.ts";
import { insertDelivery } from "../../src/webhooks/delivery-store.ts";
import { api, createAccount, insertQueuedJob, until, webhookMailbox } from "./helpers.ts";

let account: { accountId: string; key: string };
let secret: string;
beforeAll(async () => {
  account = await createAccount();
  secret = (await api(account.key, "GET", "/v1/webhooks/secret")).body.secret;
});

const deliveriesOf = async (key: string, jobId: string) =>
  (await api(key, "GET", `/v1/webhooks/deliveries?jobId=${jobId}`)).body.data;

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
    const [delivery] = await until(
      () => deliveriesOf(account.key, jobId),
      (d) => d[0]?.status === "succeeded",
    );
    const received = await box.received();
    expect(received).toHaveLength(3);
    expect(new Set(received.map((r) => r.headers["webhook-id"]))).toEqual(new Set([delivery.eventId]));
    for (const r of received) new Webhook(secret).verify(r.body, r.headers);
    expect(delivery.attempts.map((a: { httpStatus: number }) => a.httpStatus)).toEqual([500, 500, 200]);
    expect(
      delivery.attempts.every((a: { latencyMs: number; attemptedAt: string }) => a.latencyMs >= 0 && a.attemptedAt),
    ).toBe(true);
    expect(delivery.attemptCount).toBe(3);
  });

  it("records a delivery as failed after the last attempt to a receiver that always fails", async () => {
    const box = webhookMailbox();
    const jobId = await queuedCancelWithWebhook(box.url("status/503"));
    const [delivery] = await until(
      () => deliveriesOf(account.key, jobId),
      (d) => d[0]?.status === "failed",
    );
    expect(delivery.attempts).toHaveLength(4);
    expect(
      delivery.attempts.every(
        (a: { httpStatus: number; errorKind: string }) => a.httpStatus === 503 && a.errorKind === "http_error",
      ),
    ).toBe(true);
    expect(await box.received()).toHaveLength(4);
  });

  it("redelivers under the same event id", async () => {
    const box = webhookMailbox();
    const jobId = await queuedCancelWithWebhook(box.url());
    const [first] = await until(
      () => deliveriesOf(account.key, jobId),
      (d) => d[0]?.status === "succeeded",
    );
    const again = await api(account.key, "POST", `/v1/webhooks/deliveries/${first.id}/redeliver`);
    expect(again).toMatchObject({ status: 202, body: { id: first.id, status: "pending" } });
    const received = await until(box.received, (r) => r.length === 2);
    expect(received[1].headers["webhook-id"]).toBe(first.eventId);
    expect(received[1].body).toBe(received[0].body);
    const [after] = await until(
      () => deliveriesOf(account.key, jobId),
      (d) => d[0]?.status === "succeeded" && d[0].attempts.length === 2,
    );
    expect(after.attemptCount).toBe(2);
    const stranger = await createAccount();
    expect((await api(stranger.key, "POST", `/v1/webhooks/deliveries/${first.id}/redeliver`)).status).toBe(404);
  });

  it("acks or retries each message on its own, on the schedule, and ends in failed on the last attempt", async () => {
    const id = crypto.randomUUID();
    const box = webhookMailbox();
    await insertDelivery(env.DB, {
      id,
      accountId: account.accountId,
      jobId: null,
      eventId: "evt_direct",
      eventType: "job.failed",
      url: box.url("status/500"),
      payload: "{}",
      now: new Date().toISOString(),
    });
    const run = async (attempts: number) => {
      const batch = createMessageBatch("ffjobs-webhooks", [
        { id: `m${attempts}`, timestamp: new Date(), attempts, body: { deliveryId: id } },
      ]);
      await worker.queue(batch as MessageBatch<{ deliveryId: string }>, env);
      return getQueueResult(batch, createExecutionContext());
    };
    expect((await run(1)).retryMessages.map((m) => m.msgId)).toEqual(["m1"]);
    expect((await run(4)).explicitAcks).toEqual(["m4"]);
    const delivery = (await env.DB.prepare("SELECT status, attempt_count FROM webhook_deliveries WHERE id = ?1")
      .bind(id)
      .first())!;
    expect(delivery).toEqual({ status: "failed", attempt_count: 2 });
    expect((await run(5)).explicitAcks).toEqual(["m5"]);
    expect(await box.received()).toHaveLength(2);
  });

  it("marks a delivery failed when the queue dead-letters it", async () => {
    const id = crypto.randomUUID();
    await insertDelivery(env.DB, {
      id,
      accountId: account.accountId,
      jobId: null,
      eventId: "evt_dlq",
      eventType: "job.failed",
      url: "https://example.com/x",
      payload: "{}",
      now: new Date().toISOString(),
    });
    const batch = createMessageBatch("ffjobs-webhooks-dlq", [
      { id: "d", timestamp: new Date(), attempts: 1, body: { deliveryId: id } },
    ]);
    await worker.queue(batch as MessageBatch<{ deliveryId: string }>, env);
    expect((await env.DB.prepare("SELECT status FROM webhook_deliveries WHERE id = ?1").bind(id).first())!.status).toBe(
      "failed",
    );
  });

  it("pages the log and filters it by job", async () => {
    const page1 = (await api(account.key, "GET", "/v1/webhooks/deliveries?limit=2")).body;
    expect(page1.data).toHaveLength(2);
    const page2 = (
      await api(account.key, "GET", `/v1/webhooks/deliveries?limit=2&cursor=${encodeURIComponent(page1.nextCursor)}`)
    ).body;
    expect(page2.data.map((d: { id: string }) => d.id)).not.toContain(page1.data[0].id);
    expect((await api(account.key, "GET", "/v1/webhooks/deliveries?jobId=nope")).status).toBe(400);
  });
});
