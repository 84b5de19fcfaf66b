import { createExecutionContext, createMessageBatch, getQueueResult, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../src/index.ts";
import {
  api,
  coordinator,
  createAccount,
  insertQueuedJob,
  isTerminalJob,
  jobStatus,
  probeSpec,
  waitForJob,
} from "./helpers.ts";

let account: { accountId: string; key: string };
beforeAll(async () => {
  account = await createAccount();
});

describe("the jobs queue's consumers", () => {
  it("acks each message on its own and starts a job once however often it is delivered", async () => {
    const id = await insertQueuedJob(account.accountId, probeSpec("clip.mp4"));
    const batch = createMessageBatch("ffjobs-jobs", [
      { id: "m1", timestamp: new Date(), attempts: 1, body: { jobId: id } },
      { id: "m2", timestamp: new Date(), attempts: 1, body: { jobId: id } },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch as MessageBatch<{ jobId: string }>, env);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks.sort()).toEqual(["m1", "m2"]);
    expect(result.retryMessages).toEqual([]);
    const job = await waitForJob(account.key, id, isTerminalJob);
    expect(job).toMatchObject({ status: "completed", attempts: 1 });
    expect(await runInDurableObject(coordinator(id), (c) => c.start(id))).toBe("finished");
  });

  it("retries a message whose hand-off fails, with a delay, without touching the others", async () => {
    const good = await insertQueuedJob(account.accountId, probeSpec("clip.mp4"));
    const brokenEnv = {
      ...env,
      JOB_COORDINATOR: {
        idFromName: () => {
          throw new Error("boom");
        },
        get: () => null,
      },
    } as unknown as typeof env;
    const batch = createMessageBatch("ffjobs-jobs", [
      { id: "bad", timestamp: new Date(), attempts: 3, body: { jobId: good } },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch as MessageBatch<{ jobId: string }>, brokenEnv);
    const result = await getQueueResult(batch, ctx);
    // The delay itself (dispatchRetryDelaySeconds) is covered in test/unit/retry-policy.test.ts: this harness does not record it.
    expect(result.retryMessages.map((m) => m.msgId)).toEqual(["bad"]);
    expect(result.explicitAcks).toEqual([]);
    expect(await jobStatus(good)).toBe("queued");
  });

  it("rejects a job whose dispatch exhausted its retries (dead-letter queue)", async () => {
    const id = await insertQueuedJob(account.accountId);
    const batch = createMessageBatch("ffjobs-jobs-dlq", [
      { id: "d1", timestamp: new Date(), attempts: 1, body: { jobId: id } },
    ]);
    await worker.queue(batch as MessageBatch<{ jobId: string }>, env);
    const job = (await api(account.key, "GET", `/v1/jobs/${id}`)).body;
    expect(job).toMatchObject({ status: "rejected", errorCode: "RUNNER_UNAVAILABLE", creditsCharged: 0 });
  });
});
