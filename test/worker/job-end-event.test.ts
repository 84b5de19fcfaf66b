import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { beforeAll, describe, expect, it } from "vitest";
import {
  api,
  createAccount,
  insertQueuedJob,
  isTerminalJob,
  mediaUrl,
  until,
  waitForJob,
  webhookMailbox,
} from "./helpers.ts";

let account: { accountId: string; key: string };
let secret: string;
beforeAll(async () => {
  account = await createAccount();
  secret = (await api(account.key, "GET", "/v1/webhooks/secret")).body.secret;
});

describe("job events", () => {
  it("sends job.completed with the job's full form, verifiable with the library", async () => {
    const box = webhookMailbox();
    const created = await api(account.key, "POST", "/v1/jobs", {
      binary: "ffprobe",
      inputs: { m: { type: "url", url: mediaUrl("clip.mp4") } },
      ffmpegArgs: ["-v", "error", "-show_format", "{{m}}"],
      webhookUrl: box.url(),
      metadata: { customer: "acme", order: "42" },
    });
    const job = await waitForJob(account.key, created.body.id, isTerminalJob);
    const [received] = await until(box.received, (r) => r.length > 0);
    const event = new Webhook(secret).verify(received.body, received.headers) as {
      type: string;
      timestamp: string;
      data: unknown;
    };
    expect(event.type).toBe("job.completed");
    expect(event.data).toEqual(job);
    expect((event.data as { metadata: unknown }).metadata).toEqual({ customer: "acme", order: "42" });
    expect(Date.parse(event.timestamp)).toBeGreaterThanOrEqual(Date.parse(job.finishedAt));
  });

  it("sends job.failed, job.canceled and job.rejected", async () => {
    const failedBox = webhookMailbox();
    const failed = await api(account.key, "POST", "/v1/jobs", {
      inputs: { m: { type: "url", url: mediaUrl("nope.mp4") } },
      ffmpegArgs: ["-i", "{{m}}", "-f", "null", "-"],
      webhookUrl: failedBox.url(),
    });
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
      return new Webhook(s).verify(r.body, r.headers) as {
        type: string;
        data: { id: string; status: string; errorCode: string };
      };
    };
    expect(await typeOf(failedBox, secret)).toMatchObject({
      type: "job.failed",
      data: { id: failed.body.id, status: "failed", errorCode: "INPUT_FETCH_FAILED" },
    });
    expect(await typeOf(canceledBox, secret)).toMatchObject({
      type: "job.canceled",
      data: { id: queuedId, status: "canceled" },
    });
    expect(await typeOf(rejectedBox, brokeSecret)).toMatchObject({
      type: "job.rejected",
      data: { status: "rejected", errorCode: "INSUFFICIENT_CREDITS" },
    });
  });

  it("refuses private webhook URLs at job creation", async () => {
    for (const webhookUrl of [
      "http://10.0.0.5/hook",
      "http://localhost:8080/hook",
      "http://[::1]/hook",
      "http://167772165/hook",
    ]) {
      const res = await api(account.key, "POST", "/v1/jobs", { ffmpegArgs: ["-version"], webhookUrl });
      expect(res.status, webhookUrl).toBe(400);
      expect(res.body.details).toContainEqual({ path: ["webhookUrl"], message: expect.any(String), code: "custom" });
    }
  });
});
