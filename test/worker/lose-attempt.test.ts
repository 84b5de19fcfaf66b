import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { createServices } from "../../src/services.ts";
import { tickJob } from "../../src/jobs/lifecycle/tick-job.ts";
import type { TickState, NextTick } from "../../src/jobs/lifecycle/tick-state.ts";
import { watchJob } from "../../src/jobs/lifecycle/watch-job.ts";
import {
  ATTEMPT_RETRY_DELAYS_MS,
  RUNNER_ATTEMPTS,
  RUNNER_LOST_AFTER_MISSES,
} from "../../src/jobs/lifecycle/retry-policy.ts";
import { getJob } from "../../src/jobs/store/job-store.ts";
import { api, createAccount, insertQueuedJob, jobStatus, probeSpec } from "./helpers.ts";

let account: { accountId: string; key: string };
beforeAll(async () => {
  account = await createAccount();
});

describe("a lost attempt", () => {
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
    expect(await getJob(env.DB, id)).toMatchObject({
      status: "failed",
      error_code: "RUNNER_UNAVAILABLE",
      attempts: RUNNER_ATTEMPTS,
      credits_charged: 0,
    });
    expect((await getJob(env.DB, id))!.error_message).toMatch(/3 attempts/);
  });

  it("puts a job whose runner forgot it back in line; the next attempt runs it, charged once", async () => {
    const limited = await createAccount(100);
    const id = await insertQueuedJob(limited.accountId, probeSpec("clip.mp4"));
    // As if attempt 1 had been handed to a runner that then restarted: it no longer knows the job.
    const now = new Date().toISOString();
    await env.DB.prepare(
      "UPDATE jobs SET status = 'running', attempts = 1, dispatched_at = ?2, started_at = ?2 WHERE id = ?1",
    )
      .bind(id, now)
      .run();
    const services = createServices(env);
    let state: TickState = { jobId: id, phase: "watch", misses: 0 };
    for (let i = 0; i < RUNNER_LOST_AFTER_MISSES - 1; i++) {
      const step = await watchJob(services, (await getJob(env.DB, id))!, state);
      state = (step as { state: TickState }).state;
      expect(await jobStatus(id)).toBe("running");
    }
    const lost = await watchJob(services, (await getJob(env.DB, id))!, state);
    expect(lost).toEqual({ state: { jobId: id, phase: "dispatch", misses: 0 }, delayMs: ATTEMPT_RETRY_DELAYS_MS[0] });
    expect(await getJob(env.DB, id)).toMatchObject({
      status: "queued",
      started_at: null,
      dispatched_at: null,
      attempts: 1,
    });
    for (let step: NextTick = lost; !step.done; ) step = await tickJob(services, step.state);
    const job = (await api(limited.key, "GET", `/v1/jobs/${id}`)).body;
    expect(job).toMatchObject({ status: "completed", attempts: 2, runtimeSeconds: 1, creditsCharged: 1 });
    const b = await env.DB.prepare("SELECT credit_balance AS b FROM accounts WHERE id = ?1")
      .bind(limited.accountId)
      .first<{ b: number }>();
    expect(b!.b).toBe(99);
  });
});
