import { createExecutionContext, createMessageBatch, getQueueResult, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../src/index.ts";
import { createServices } from "../../src/services.ts";
import { createRunnerClient } from "../../src/runner/runner-client.ts";
import { dispatchJob } from "../../src/jobs/lifecycle/dispatch-job.ts";
import { tickJob } from "../../src/jobs/lifecycle/tick-job.ts";
import type { TickState, NextTick } from "../../src/jobs/lifecycle/tick-state.ts";
import { watchJob } from "../../src/jobs/lifecycle/watch-job.ts";
import { ATTEMPT_RETRY_DELAYS_MS, CAPACITY_RETRY_MS, DEADLINE_GRACE_MS, OUTPUT_STORE_ALLOWANCE_MS, RUNNER_ATTEMPTS, RUNNER_LOST_AFTER_MISSES } from "../../src/jobs/lifecycle/retry-policy.ts";
import { getJob } from "../../src/jobs/store/job-store.ts";
import { api, createAccount, insertQueuedJob, jobStatus, mediaUrl, waitForJob, isTerminalJob } from "./helpers.ts";
import { writeEnding } from "../../src/jobs/transitions/write-ending.ts";

let account: { accountId: string; key: string };
beforeAll(async () => {
  account = await createAccount();
});

const coordinator = (jobId: string) => env.JOB_COORDINATOR.get(env.JOB_COORDINATOR.idFromName(jobId));
const probeSpec = (file: string) => ({ binary: "ffprobe", args: ["-v", "error", "-show_format", "{{m}}"], inputs: { m: { type: "url", url: mediaUrl(file) } } });

describe("dispatch and coordination", () => {
  it("cancels a queued job at once, and a later queue message for it does nothing", async () => {
    const id = await insertQueuedJob(account.accountId, probeSpec("clip.mp4"));
    const notYet = await api(account.key, "GET", `/v1/jobs/${id}/result`);
    expect(notYet).toMatchObject({ status: 409, body: { code: "JOB_NOT_FINISHED", status: "queued" } });
    const res = await api(account.key, "POST", `/v1/jobs/${id}/cancel`);
    expect(res.body).toMatchObject({ status: "canceled", runtimeSeconds: 0, creditsCharged: 0, startedAt: null });
    expect(await runInDurableObject(coordinator(id), (c) => c.start(id))).toBe("finished");
    expect(await jobStatus(id)).toBe("canceled");
  });

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
    const brokenEnv = { ...env, JOB_COORDINATOR: { idFromName: () => { throw new Error("boom"); }, get: () => null } } as unknown as typeof env;
    const batch = createMessageBatch("ffjobs-jobs", [{ id: "bad", timestamp: new Date(), attempts: 3, body: { jobId: good } }]);
    const ctx = createExecutionContext();
    await worker.queue(batch as MessageBatch<{ jobId: string }>, brokenEnv);
    const result = await getQueueResult(batch, ctx);
    // The delay itself (dispatchRetryDelaySeconds) is covered in test/unit: this harness does not record it.
    expect(result.retryMessages.map((m) => m.msgId)).toEqual(["bad"]);
    expect(result.explicitAcks).toEqual([]);
    expect(await jobStatus(good)).toBe("queued");
  });

  it("rejects a job whose dispatch exhausted its retries (dead-letter queue)", async () => {
    const id = await insertQueuedJob(account.accountId);
    const batch = createMessageBatch("ffjobs-jobs-dlq", [{ id: "d1", timestamp: new Date(), attempts: 1, body: { jobId: id } }]);
    await worker.queue(batch as MessageBatch<{ jobId: string }>, env);
    const job = (await api(account.key, "GET", `/v1/jobs/${id}`)).body;
    expect(job).toMatchObject({ status: "rejected", errorCode: "RUNNER_UNAVAILABLE", creditsCharged: 0 });
  });

  it("retries a job whose runner cannot be reached, then fails it RUNNER_UNAVAILABLE after the last attempt, uncharged", async () => {
    const id = await insertQueuedJob(account.accountId, probeSpec("clip.mp4"));
    const unreachable = createServices({ ...env, RUNNER_URL: "http://127.0.0.1:9" });
    let state: TickState = { jobId: id, phase: "dispatch", misses: 0 };
    const delays: number[] = [];
    for (let step: NextTick = { state, delayMs: 0 }; !step.done; ) {
      step = await tickJob(unreachable, state);
      if (step.done) break;
      delays.push(step.delayMs);
      state = step.state;
      expect(state.phase).toBe("dispatch");
      expect(await getJob(env.DB, id)).toMatchObject({ status: "queued", dispatched_at: null });
    }
    expect(delays).toEqual(ATTEMPT_RETRY_DELAYS_MS);
    expect(await getJob(env.DB, id)).toMatchObject({ status: "failed", error_code: "RUNNER_UNAVAILABLE", attempts: RUNNER_ATTEMPTS, credits_charged: 0 });
    expect((await getJob(env.DB, id))!.error_message).toMatch(/3 attempts/);
  });

  it("puts a job whose runner forgot it back in line; the next attempt runs it, charged once", async () => {
    const limited = await createAccount(100);
    const id = await insertQueuedJob(limited.accountId, probeSpec("clip.mp4"));
    // As if attempt 1 had been handed to a runner that then restarted: it no longer knows the job.
    const now = new Date().toISOString();
    await env.DB.prepare("UPDATE jobs SET status = 'running', attempts = 1, dispatched_at = ?2, started_at = ?2 WHERE id = ?1").bind(id, now).run();
    const services = createServices(env);
    let state: TickState = { jobId: id, phase: "watch", misses: 0 };
    for (let i = 0; i < RUNNER_LOST_AFTER_MISSES - 1; i++) {
      const step = await watchJob(services, (await getJob(env.DB, id))!, state);
      state = (step as { state: TickState }).state;
      expect(await jobStatus(id)).toBe("running");
    }
    const lost = await watchJob(services, (await getJob(env.DB, id))!, state);
    expect(lost).toEqual({ state: { jobId: id, phase: "dispatch", misses: 0 }, delayMs: ATTEMPT_RETRY_DELAYS_MS[0] });
    expect(await getJob(env.DB, id)).toMatchObject({ status: "queued", started_at: null, dispatched_at: null, attempts: 1 });
    for (let step: NextTick = lost; !step.done; ) step = await tickJob(services, step.state);
    const job = (await api(limited.key, "GET", `/v1/jobs/${id}`)).body;
    expect(job).toMatchObject({ status: "completed", attempts: 2, runtimeSeconds: 1, creditsCharged: 1 });
    const b = await env.DB.prepare("SELECT credit_balance AS b FROM accounts WHERE id = ?1").bind(limited.accountId).first<{ b: number }>();
    expect(b!.b).toBe(99);
  });

  it("keeps a job queued, without spending an attempt, while the platform has no container free", async () => {
    const id = await insertQueuedJob(account.accountId, probeSpec("clip.mp4"));
    // What containerFetch answers when max_instances are all busy.
    const full = createRunnerClient({
      prepare: async () => null,
      fetch: async () => new Response("There is no Container instance available at this time.", { status: 503 }),
      release: async () => {},
      timeouts: { startMs: 1000, callMs: 1000 },
    });
    const services = { ...createServices(env), runner: full };
    for (let i = 0; i < 3; i++) {
      expect(await dispatchJob(services, (await getJob(env.DB, id))!)).toEqual({ state: { jobId: id, phase: "dispatch", misses: 0 }, delayMs: CAPACITY_RETRY_MS });
      expect(await getJob(env.DB, id)).toMatchObject({ status: "queued", attempts: 0, dispatched_at: null });
    }
    for (let step: NextTick = await dispatchJob(createServices(env), (await getJob(env.DB, id))!); !step.done; ) step = await tickJob(createServices(env), step.state);
    expect(await getJob(env.DB, id)).toMatchObject({ status: "completed", attempts: 1 });
  });

  it("counts a runner that is too busy to answer as a missed poll, and retries a run the runner gave up, uncharged", async () => {
    const limited = await createAccount(100);
    const id = await insertQueuedJob(limited.accountId, probeSpec("clip.mp4"));
    const now = new Date().toISOString();
    await env.DB.prepare("UPDATE jobs SET status = 'running', attempts = 1, dispatched_at = ?2, started_at = ?2 WHERE id = ?1").bind(id, now).run();
    const calls: string[] = [];
    const runner = (answer: () => Response) => createRunnerClient({
      prepare: async () => null,
      fetch: async (_job, path, init) => {
        calls.push(`${init?.method ?? "GET"} ${path}`);
        return answer();
      },
      release: async () => {},
      timeouts: { startMs: 1000, callMs: 1000 },
    });
    const state: TickState = { jobId: id, phase: "watch", misses: 0 };
    const busy = { ...createServices(env), runner: runner(() => new Response("busy", { status: 503 })) };
    expect(await watchJob(busy, (await getJob(env.DB, id))!, state)).toMatchObject({ state: { misses: 1 } });
    const gaveUp = { jobId: id, state: "finished", startedAt: now, progress: null, outcome: {
      status: "failed", exitCode: null, runtimeMs: 4000, errorCode: "RUNNER_LOST", errorMessage: "The runner stopped the job", stdout: "", stderrTail: "", outputs: [],
      timings: { fetchMs: 0, runMs: 4000, storeMs: 0 }, finishedAt: now } };
    const lost = { ...createServices(env), runner: runner(() => Response.json(gaveUp)) };
    expect(await watchJob(lost, (await getJob(env.DB, id))!, state)).toMatchObject({ state: { phase: "dispatch" } });
    expect(await getJob(env.DB, id)).toMatchObject({ status: "queued", attempts: 1, credits_charged: 0 });
    expect(calls).toContain(`DELETE /jobs/${id}`);
  });

  it("keeps ticking a job from its alarm: start arms it once, and re-arms an alarm that was lost", async () => {
    const id = await insertQueuedJob(account.accountId, probeSpec("clip.mp4"));
    const stub = coordinator(id);
    await runInDurableObject(stub, async (c, state) => {
      expect(await c.start(id)).toBe("ticking");
      const armed = await state.storage.getAlarm();
      expect(armed).not.toBeNull();
      expect(await c.start(id)).toBe("ticking");
      expect(await state.storage.getAlarm()).toBe(armed);
      await state.storage.deleteAlarm();
      expect(await c.start(id)).toBe("ticking");
      expect(await state.storage.getAlarm()).not.toBeNull();
    });
    while (await runDurableObjectAlarm(stub)) {
      if (isTerminalJob({ status: await jobStatus(id) })) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await waitForJob(account.key, id, isTerminalJob)).status).toBe("completed");
  });

  it("stops a job past its deadline with JOB_TIMEOUT and kills its process", async () => {
    const id = await insertQueuedJob(account.accountId, { binary: "ffmpeg", args: ["-re", "-i", "{{m}}", "-f", "null", "-"], inputs: { m: { type: "url", url: mediaUrl("long.mp4") } } });
    const services = createServices(env);
    let step = await dispatchJob(services, (await getJob(env.DB, id))!);
    for (let i = 0; !(await services.runner.status(id))?.progress; i++) {
      if (i > 200) throw new Error("the runner never reported progress");
      await new Promise((r) => setTimeout(r, 50));
    }
    step = await watchJob(services, (await getJob(env.DB, id))!, (step as { state: TickState }).state);
    expect(await jobStatus(id)).toBe("running");
    const later = { ...services, now: () => new Date(Date.now() + services.config.jobTimeoutMs + 60_000) };
    expect(await watchJob(later, (await getJob(env.DB, id))!, (step as { state: TickState }).state)).toEqual({ done: true });
    const job = (await getJob(env.DB, id))!;
    expect(job).toMatchObject({ status: "failed", error_code: "JOB_TIMEOUT" });
    expect(job.runtime_seconds).toBeGreaterThanOrEqual(1);
    expect(await services.runner.status(id)).toBeNull();
  });

  it("lets a runner still storing a finished run's outputs go on past the deadline, for a bounded while; a stopped job's stray files are deleted", async () => {
    const id = await insertQueuedJob(account.accountId, probeSpec("clip.mp4"));
    const started = new Date(Date.now() - 2 * 3600_000).toISOString();
    await env.DB.prepare("UPDATE jobs SET status = 'running', attempts = 1, dispatched_at = ?2, started_at = ?2 WHERE id = ?1").bind(id, started).run();
    const answer: Record<string, unknown> = { jobId: id, state: "uploading", startedAt: started, progress: null, outcome: null };
    const calls: string[] = [];
    // A test double of a runner: it answers what this test says, and records what it is asked.
    const runner = createRunnerClient({
      prepare: async () => null,
      fetch: async (_job, path, init) => {
        calls.push(`${init?.method ?? "GET"} ${path}`);
        return Response.json(answer);
      },
      release: async () => {},
      timeouts: { startMs: 1000, callMs: 1000 },
    });
    const state: TickState = { jobId: id, phase: "watch", misses: 0 };
    const at = (ms: number) => ({ ...createServices(env), runner, now: () => new Date(Date.parse(started) + ms) });
    const deadline = createServices(env).config.jobTimeoutMs + DEADLINE_GRACE_MS;
    expect(await watchJob(at(deadline + 60_000), (await getJob(env.DB, id))!, state)).toMatchObject({ state: { misses: 0 } });
    expect(await jobStatus(id)).toBe("running");
    await env.BUCKET.put(`outputs/${id}/out/partial.mp4`, "bytes");
    expect(await watchJob(at(deadline + OUTPUT_STORE_ALLOWANCE_MS + 1000), (await getJob(env.DB, id))!, state)).toEqual({ done: true });
    expect(await getJob(env.DB, id)).toMatchObject({ status: "failed", error_code: "JOB_TIMEOUT" });
    expect(calls).toContain(`POST /jobs/${id}/cancel`);
    expect((await env.BUCKET.list({ prefix: `outputs/${id}/` })).objects).toEqual([]);
  });

  it("lets a late or duplicate finish change nothing and charges once", async () => {
    const limited = await createAccount(50);
    const id = await insertQueuedJob(limited.accountId);
    await env.DB.prepare("UPDATE jobs SET status = 'running' WHERE id = ?1").bind(id).run();
    const finish = { status: "completed" as const, exitCode: 0, runtimeSeconds: 4, creditsCharged: 4, errorCode: null, errorMessage: null, stdout: "", stderrTail: "" };
    expect((await writeEnding(env.DB, id, finish, new Date().toISOString())).moved).toBe(true);
    expect((await writeEnding(env.DB, id, { ...finish, status: "failed", creditsCharged: 9 }, new Date().toISOString())).moved).toBe(false);
    expect((await writeEnding(env.DB, id, finish, new Date().toISOString())).moved).toBe(false);
    expect(await jobStatus(id)).toBe("completed");
    const b = await env.DB.prepare("SELECT credit_balance AS b FROM accounts WHERE id = ?1").bind(limited.accountId).first<{ b: number }>();
    expect(b!.b).toBe(46);
  });
});
