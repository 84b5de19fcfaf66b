import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { beforeAll, describe, expect, it } from "vitest";
import { endJob } from "../../src/jobs/lifecycle/end-job.ts";
import { sweepStalled } from "../../src/maintenance/sweep-stalled.ts";
import { createServices } from "../../src/services.ts";
import { api, createAccount, insertQueuedJob, minutesLater, webhookMailbox } from "./helpers.ts";
import { canceledEnding } from "../../src/jobs/lifecycle/job-endings.ts";

let account: { accountId: string; key: string };
let secret: string;
beforeAll(async () => {
  account = await createAccount();
  secret = (await api(account.key, "GET", "/v1/webhooks/secret")).body.secret;
});

const deliveryRows = (jobId: string) =>
  env.DB.prepare("SELECT status, attempt_count, payload FROM webhook_deliveries WHERE job_id = ?1")
    .bind(jobId)
    .all<{ status: string; attempt_count: number; payload: string }>();

async function received(box: ReturnType<typeof webhookMailbox>, count = 1) {
  for (let i = 0; i < 150; i++) {
    const r = await box.received();
    if (r.length >= count) return r;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error("nothing arrived");
}

describe("the end event is written with the terminal transition (outbox)", () => {
  it("survives a failed queue send: the sweeper delivers it later", async () => {
    const box = webhookMailbox();
    const jobId = await insertQueuedJob(account.accountId);
    await env.DB.prepare("UPDATE jobs SET webhook_url = ?2 WHERE id = ?1").bind(jobId, box.url()).run();
    const brokenQueue = {
      send: async () => {
        throw new Error("queue unavailable");
      },
      sendBatch: async () => {
        throw new Error("queue unavailable");
      },
    };
    const services = { ...createServices(env), webhooksQueue: brokenQueue as unknown as Queue<{ deliveryId: string }> };
    expect(await endJob(services, jobId, canceledEnding())).toBe(true);
    expect((await deliveryRows(jobId)).results).toEqual([{ status: "pending", attempt_count: 0, payload: "" }]);
    expect(await box.received()).toEqual([]);

    expect((await sweepStalled({ ...createServices(env), now: minutesLater(1) })).deliveries).toBe(0);
    expect((await sweepStalled({ ...createServices(env), now: minutesLater(6) })).deliveries).toBeGreaterThanOrEqual(1);
    const [hook] = await received(box);
    const event = new Webhook(secret).verify(hook.body, hook.headers) as {
      type: string;
      data: { id: string; status: string };
    };
    expect(event).toMatchObject({ type: "job.canceled", data: { id: jobId, status: "canceled" } });
  });

  it("writes one event per job, none without a webhookUrl, and none for a finish that changed nothing", async () => {
    const services = createServices(env);
    const plain = await insertQueuedJob(account.accountId);
    await endJob(services, plain, canceledEnding());
    expect((await deliveryRows(plain)).results).toEqual([]);
    const hooked = await insertQueuedJob(account.accountId);
    await env.DB.prepare("UPDATE jobs SET webhook_url = ?2 WHERE id = ?1").bind(hooked, webhookMailbox().url()).run();
    expect(await endJob(services, hooked, canceledEnding())).toBe(true);
    expect(await endJob(services, hooked, canceledEnding())).toBe(false);
    expect((await deliveryRows(hooked)).results).toHaveLength(1);
  });
});
