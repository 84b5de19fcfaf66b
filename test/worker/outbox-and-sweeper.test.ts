import { createScheduledController } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../src/index.ts";
import { app } from "../../src/api/app.ts";
import { endJob } from "../../src/jobs/lifecycle/end-job.ts";
import { sweepStalled } from "../../src/maintenance/sweep-stalled.ts";
import { createServices } from "../../src/services.ts";
import { api, createAccount, insertQueuedJob, isTerminalJob, jobStatus, mediaUrl, waitForJob, webhookMailbox } from "./helpers.ts";
import { canceledEnding } from "../../src/jobs/lifecycle/job-endings.ts";

let account: { accountId: string; key: string };
let secret: string;
beforeAll(async () => {
  account = await createAccount();
  secret = (await api(account.key, "GET", "/v1/webhooks/secret")).body.secret;
});

const minutesLater = (m: number) => () => new Date(Date.now() + m * 60_000);
const deliveryRows = (jobId: string) =>
  env.DB.prepare("SELECT status, attempt_count, payload FROM webhook_deliveries WHERE job_id = ?1").bind(jobId).all<{ status: string; attempt_count: number; payload: string }>();

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
    const brokenQueue = { send: async () => { throw new Error("queue unavailable"); }, sendBatch: async () => { throw new Error("queue unavailable"); } };
    const services = { ...createServices(env), webhooksQueue: brokenQueue as unknown as Queue<{ deliveryId: string }> };
    expect(await endJob(services, jobId, canceledEnding())).toBe(true);
    expect((await deliveryRows(jobId)).results).toEqual([{ status: "pending", attempt_count: 0, payload: "" }]);
    expect(await box.received()).toEqual([]);

    expect((await sweepStalled({ ...createServices(env), now: minutesLater(1) })).deliveries).toBe(0);
    expect((await sweepStalled({ ...createServices(env), now: minutesLater(6) })).deliveries).toBeGreaterThanOrEqual(1);
    const [hook] = await received(box);
    const event = new Webhook(secret).verify(hook.body, hook.headers) as { type: string; data: { id: string; status: string } };
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

describe("the sweeper", () => {
  it("dispatches a queued job whose queue message was lost, and leaves fresh ones alone", async () => {
    const services = createServices(env);
    const jobId = await insertQueuedJob(account.accountId, { binary: "ffprobe", args: ["-show_format", "{{m}}"], inputs: { m: { type: "url", url: mediaUrl("clip.mp4") } } });
    expect((await sweepStalled(services)).jobs).toBe(0);
    expect(await jobStatus(jobId)).toBe("queued");
    expect((await sweepStalled({ ...services, now: minutesLater(3) })).jobs).toBeGreaterThanOrEqual(1);
    expect((await waitForJob(account.key, jobId, isTerminalJob)).status).toBe("completed");
  });

  it("covers a failed dispatch at creation: the client still gets its 202, and the job runs", async () => {
    const brokenEnv = { ...env, JOBS_QUEUE: { send: async () => { throw new Error("queue unavailable"); } } as unknown as typeof env.JOBS_QUEUE };
    const res = await app.fetch(
      new Request("https://ffjobs.test/v1/jobs", {
        method: "POST",
        headers: { Authorization: `Bearer ${account.key}`, "Content-Type": "application/json" },
        body: JSON.stringify({ binary: "ffprobe", input: [{ type: "url", url: mediaUrl("clip.mp4") }], ffmpegArgs: ["-show_format", "{{input0}}"] }),
      }),
      brokenEnv,
    );
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    expect(await jobStatus(id)).toBe("queued");
    await sweepStalled({ ...createServices(env), now: minutesLater(3) });
    expect((await waitForJob(account.key, id, isTerminalJob)).status).toBe("completed");
  });

  it("runs from the Worker's cron trigger", async () => {
    const jobId = await insertQueuedJob(account.accountId, { binary: "ffprobe", args: ["-show_format", "{{m}}"], inputs: { m: { type: "url", url: mediaUrl("clip.mp4") } } });
    await env.DB.prepare("UPDATE jobs SET updated_at = ?2 WHERE id = ?1").bind(jobId, new Date(Date.now() - 10 * 60_000).toISOString()).run();
    await worker.scheduled(createScheduledController({ cron: "* * * * *", scheduledTime: new Date() }), env);
    expect((await waitForJob(account.key, jobId, isTerminalJob)).status).toBe("completed");
  });
});
