import {
  createExecutionContext,
  createMessageBatch,
  createScheduledController,
  getQueueResult,
  runDurableObjectAlarm,
  runInDurableObject,
  waitOnExecutionContext,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index.ts";
import { JobCoordinator } from "../../src/jobs/lifecycle/job-coordinator.ts";
import { ContainerPool } from "../../src/runner/container-pool.ts";
import { RateLimiter } from "../../src/api/rate-limit.ts";
import { FfmpegContainer } from "../../src/runner/ffmpeg-container.ts";
import { FILES_HOST } from "../../src/runner/runner-files.ts";
import { runnerWriteToken } from "../../src/storage/directory-files.ts";
import { loadConfig } from "../../src/config.ts";
import { getJob } from "../../src/jobs/store/job-store.ts";
import { firstTickState } from "../../src/jobs/lifecycle/tick-job.ts";
import { TICK_ERROR_RETRY_MS } from "../../src/jobs/lifecycle/retry-policy.ts";
import { isCountedEntryPoint } from "../../src/platform/counted-durable-object.ts";
import { countedEnv, startInvocation } from "../../src/platform/invocation.ts";
import {
  InvocationBudget,
  InvocationLimitExceeded,
  TOO_MANY_API_REQUESTS,
  TOO_MANY_SUBREQUESTS,
} from "../../src/platform/invocation-budget.ts";
import { api, createAccount, insertQueuedJob } from "./helpers.ts";

/**
 * Every kind of invocation the platform counts on its own (src/platform/invocation-budget.ts) gets
 * its own budget of D1 queries and subrequests here too, and the subrequest past the limit is
 * refused in the platform's words. The limits are lowered per test through the same variables the
 * local stack sets (SUBREQUEST_LIMIT_PER_INVOCATION), so a kind that was not counted would let
 * everything through.
 */
const withSubrequests = (n: number) => ({ ...env, SUBREQUEST_LIMIT_PER_INVOCATION: String(n) });
const coordinator = (jobId: string) => env.JOB_COORDINATOR.get(env.JOB_COORDINATOR.idFromName(jobId));

describe("subrequests per invocation", () => {
  it("counts each kind the platform counts (fetch, D1, R2, Queues, Durable Object calls) and refuses the one past the limit in the platform's words", async () => {
    const { accountId } = await createAccount();
    const jobId = await insertQueuedJob(accountId);
    const budget = new InvocationBudget({ d1Queries: 1000, subrequests: 6 });
    await startInvocation(countedEnv(env, budget), async (e) => {
      await (await fetch(`${loadConfig(e).runnerUrl}/healthz`)).body?.cancel();
      await e.DB.batch([e.DB.prepare("SELECT 1"), e.DB.prepare("SELECT 2")]);
      await e.BUCKET.head("nothing-here");
      await e.JOBS_QUEUE.send({ jobId: "00000000-0000-4000-8000-000000000000" });
      // Making a stub is free; calling it is one.
      const stub = e.JOB_COORDINATOR.get(e.JOB_COORDINATOR.idFromName(jobId));
      await stub.snapshot();
      await e.BUCKET.list({ prefix: "nothing/" });
      expect(budget.byKind).toEqual({ fetch: 1, d1: 1, r2: 2, queue: 1, "durable-object": 1 });
      expect([budget.subrequests, budget.d1Queries]).toEqual([6, 2]);
      await expect(fetch(`${loadConfig(e).runnerUrl}/healthz`)).rejects.toThrow(TOO_MANY_SUBREQUESTS);
      await expect(Promise.resolve().then(() => e.BUCKET.head("x"))).rejects.toThrow(TOO_MANY_API_REQUESTS);
      await expect(Promise.resolve().then(() => stub.snapshot())).rejects.toBeInstanceOf(InvocationLimitExceeded);
    });
  });

  it("a Worker request: refused past the limit (auth, the rate limiter and the list are three)", async () => {
    const { key } = await createAccount();
    const serve = async (limit: number) => {
      const ctx = createExecutionContext();
      const res = await worker.fetch(
        new Request("http://ffjobs.test/v1/jobs", { headers: { authorization: `Bearer ${key}` } }),
        withSubrequests(limit),
        ctx,
      );
      await waitOnExecutionContext(ctx);
      return res.status;
    };
    expect(await serve(2)).toBe(500);
    expect(await serve(50)).toBe(200);
  });

  it("a queue batch: its messages share one budget (each hand-over to a coordinator is a call)", async () => {
    const { accountId } = await createAccount();
    const [a, b] = [await insertQueuedJob(accountId), await insertQueuedJob(accountId)];
    const batch = createMessageBatch("ffjobs-jobs", [
      { id: "m1", timestamp: new Date(), attempts: 1, body: { jobId: a } },
      { id: "m2", timestamp: new Date(), attempts: 1, body: { jobId: b } },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch as MessageBatch<{ jobId: string }>, withSubrequests(1));
    const result = await getQueueResult(batch, ctx);
    expect([result.explicitAcks.length, result.retryMessages.length]).toEqual([1, 1]);
  });

  it("a cron run: refused past the limit", async () => {
    await expect(
      worker.scheduled(createScheduledController({ cron: "* * * * *" }), withSubrequests(1)),
    ).rejects.toBeInstanceOf(InvocationLimitExceeded);
    await worker.scheduled(createScheduledController({ cron: "* * * * *" }), env);
  });

  it("a container's outbound request (jobEgress): a runner's directory file is a D1 read, an R2 list and an R2 put", async () => {
    const { accountId } = await createAccount();
    const jobId = await insertQueuedJob(accountId, {
      outputs: { hls: { fileName: "hls", contentType: "application/vnd.apple.mpegurl", kind: "directory" } },
    });
    await env.DB.prepare("UPDATE jobs SET status = 'running', attempts = 1 WHERE id = ?1").bind(jobId).run();
    const prefix = `http://${FILES_HOST}/jobs/${jobId}/hls/1/`;
    const token = await runnerWriteToken(loadConfig(env).storage, jobId, "hls", 1, 60);
    const put = (name: string, e: typeof env) =>
      FfmpegContainer.outboundHandlers!.jobEgress(
        new Request(prefix + name, {
          method: "PUT",
          body: "#EXTM3U\n",
          headers: { authorization: `Bearer ${token}`, "content-length": "8" },
        }),
        e,
        {
          params: { allow: [{ method: "PUT", url: prefix, prefix: true }] },
          containerId: "test",
          className: "FfmpegContainer",
        } as never,
      );
    await expect(put("index.m3u8", withSubrequests(2))).rejects.toThrow(TOO_MANY_API_REQUESTS);
    expect(await env.BUCKET.head(`outputs/${jobId}/hls/index.m3u8`)).toBeNull();
    expect((await put("index.m3u8", withSubrequests(3))).status).toBe(201);
    const budget = new InvocationBudget({ d1Queries: 1000, subrequests: 10_000 });
    expect((await put("other.m3u8", countedEnv(env, budget))).status).toBe(201);
    expect(budget.byKind).toMatchObject({ d1: 1, r2: 2 });
  });

  it("every entry point of each Durable Object class the Worker defines is an invocation of its own", () => {
    for (const cls of [JobCoordinator, ContainerPool, RateLimiter]) {
      const methods = Object.getOwnPropertyNames(cls.prototype).filter((m) => m !== "constructor");
      expect(methods.length, cls.name).toBeGreaterThan(0);
      for (const m of methods)
        expect(isCountedEntryPoint((cls.prototype as unknown as Record<string, unknown>)[m]), `${cls.name}.${m}`).toBe(
          true,
        );
    }
  });

  it("a Durable Object RPC call: refused past the limit, and each call has a budget of its own", async () => {
    const { accountId, key } = await createAccount();
    const jobId = await insertQueuedJob(accountId);
    const stub = coordinator(jobId);
    await runInDurableObject(stub, (c) => {
      (c as unknown as { env: typeof env }).env = withSubrequests(1);
    });
    // Reading the job is one; ending it is more. (Called in the object, not over RPC: workerd reports
    // an RPC call's rejection as an uncaught error too, which vitest counts against the run.)
    await expect(runInDurableObject(stub, (c) => c.cancel(jobId))).rejects.toThrow(
      /Too many API requests by single Worker invocation/,
    );
    expect((await api(key, "GET", `/v1/jobs/${jobId}`)).body.status).toBe("queued");
    await env.DB.prepare("UPDATE jobs SET status = 'canceled' WHERE id = ?1").bind(jobId).run();
    // A start that reads a finished job is one subrequest: as often as it is called, each its own.
    for (let i = 0; i < 5; i++) expect(await stub.start(jobId)).toBe("finished");
  });

  it("a Durable Object alarm: a tick past the limit is refused and tried again later, the job untouched", async () => {
    const { accountId } = await createAccount();
    const jobId = await insertQueuedJob(accountId);
    const stub = coordinator(jobId);
    const job = (await getJob(env.DB, jobId))!;
    await runInDurableObject(stub, async (c, state) => {
      (c as unknown as { env: typeof env }).env = withSubrequests(1);
      await state.storage.put("drive", firstTickState(job));
      await state.storage.setAlarm(Date.now() + 60_000);
    });
    const before = Date.now();
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect((await getJob(env.DB, jobId))!).toMatchObject({ status: "queued", attempts: 0 });
    const next = await runInDurableObject(stub, (_c, state) => state.storage.getAlarm());
    expect(next! - before).toBeGreaterThanOrEqual(TICK_ERROR_RETRY_MS - 50);
    await runInDurableObject(stub, (_c, state) => state.storage.deleteAll());
  });
});
