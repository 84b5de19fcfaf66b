import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { createServices } from "../../src/services.ts";
import { dispatchJob } from "../../src/jobs/lifecycle/dispatch-job.ts";
import type { TickState } from "../../src/jobs/lifecycle/tick-state.ts";
import { watchJob } from "../../src/jobs/lifecycle/watch-job.ts";
import { DEADLINE_GRACE_MS, OUTPUT_STORE_ALLOWANCE_MS } from "../../src/jobs/lifecycle/retry-policy.ts";
import { getJob } from "../../src/jobs/store/job-store.ts";
import { createAccount, insertQueuedJob, jobStatus, mediaUrl, probeSpec, recordingRunner } from "./helpers.ts";

let account: { accountId: string; key: string };
beforeAll(async () => {
  account = await createAccount();
});

describe("watching a job on its runner", () => {
  it("counts a runner that is too busy to answer as a missed poll, and retries a run the runner gave up, uncharged", async () => {
    const limited = await createAccount(100);
    const id = await insertQueuedJob(limited.accountId, probeSpec("clip.mp4"));
    const now = new Date().toISOString();
    await env.DB.prepare(
      "UPDATE jobs SET status = 'running', attempts = 1, dispatched_at = ?2, started_at = ?2 WHERE id = ?1",
    )
      .bind(id, now)
      .run();
    const calls: string[] = [];
    const runner = (answer: () => Response) => recordingRunner(answer, calls).client;
    const state: TickState = { jobId: id, phase: "watch", misses: 0 };
    const busy = { ...createServices(env), runner: runner(() => new Response("busy", { status: 503 })) };
    expect(await watchJob(busy, (await getJob(env.DB, id))!, state)).toMatchObject({ state: { misses: 1 } });
    const gaveUp = {
      jobId: id,
      state: "finished",
      startedAt: now,
      progress: null,
      outcome: {
        status: "failed",
        exitCode: null,
        runtimeMs: 4000,
        errorCode: "RUNNER_LOST",
        errorMessage: "The runner stopped the job",
        stdout: "",
        stderrTail: "",
        outputs: [],
        timings: { fetchMs: 0, runMs: 4000, storeMs: 0 },
        finishedAt: now,
      },
    };
    const lost = { ...createServices(env), runner: runner(() => Response.json(gaveUp)) };
    expect(await watchJob(lost, (await getJob(env.DB, id))!, state)).toMatchObject({ state: { phase: "dispatch" } });
    expect(await getJob(env.DB, id)).toMatchObject({ status: "queued", attempts: 1, credits_charged: 0 });
    expect(calls).toContain(`DELETE /jobs/${id}`);
  });

  it("stops a job past its deadline with JOB_TIMEOUT and kills its process", async () => {
    const id = await insertQueuedJob(account.accountId, {
      binary: "ffmpeg",
      args: ["-re", "-i", "{{m}}", "-f", "null", "-"],
      inputs: { m: { type: "url", url: mediaUrl("long.mp4") } },
    });
    const services = createServices(env);
    let step = await dispatchJob(services, (await getJob(env.DB, id))!);
    for (let i = 0; !(await services.runner.status(id))?.progress; i++) {
      if (i > 200) throw new Error("the runner never reported progress");
      await new Promise((r) => setTimeout(r, 50));
    }
    step = await watchJob(services, (await getJob(env.DB, id))!, (step as { state: TickState }).state);
    expect(await jobStatus(id)).toBe("running");
    const later = { ...services, now: () => new Date(Date.now() + services.config.jobTimeoutMs + 60_000) };
    expect(await watchJob(later, (await getJob(env.DB, id))!, (step as { state: TickState }).state)).toEqual({
      done: true,
    });
    const job = (await getJob(env.DB, id))!;
    expect(job).toMatchObject({ status: "failed", error_code: "JOB_TIMEOUT" });
    expect(job.runtime_seconds).toBeGreaterThanOrEqual(1);
    expect(await services.runner.status(id)).toBeNull();
  });

  it("lets a runner still storing a finished run's outputs go on past the deadline, for a bounded while; a stopped job's stray files are deleted", async () => {
    const id = await insertQueuedJob(account.accountId, probeSpec("clip.mp4"));
    const started = new Date(Date.now() - 2 * 3600_000).toISOString();
    await env.DB.prepare(
      "UPDATE jobs SET status = 'running', attempts = 1, dispatched_at = ?2, started_at = ?2 WHERE id = ?1",
    )
      .bind(id, started)
      .run();
    const answer: Record<string, unknown> = {
      jobId: id,
      state: "uploading",
      startedAt: started,
      progress: null,
      outcome: null,
    };
    // A test double of a runner: it answers what this test says, and records what it is asked.
    const { calls, client: runner } = recordingRunner(() => Response.json(answer));
    const state: TickState = { jobId: id, phase: "watch", misses: 0 };
    const at = (ms: number) => ({ ...createServices(env), runner, now: () => new Date(Date.parse(started) + ms) });
    const deadline = createServices(env).config.jobTimeoutMs + DEADLINE_GRACE_MS;
    expect(await watchJob(at(deadline + 60_000), (await getJob(env.DB, id))!, state)).toMatchObject({
      state: { misses: 0 },
    });
    expect(await jobStatus(id)).toBe("running");
    await env.BUCKET.put(`outputs/${id}/out/partial.mp4`, "bytes");
    expect(await watchJob(at(deadline + OUTPUT_STORE_ALLOWANCE_MS + 1000), (await getJob(env.DB, id))!, state)).toEqual(
      { done: true },
    );
    expect(await getJob(env.DB, id)).toMatchObject({ status: "failed", error_code: "JOB_TIMEOUT" });
    expect(calls).toContain(`POST /jobs/${id}/cancel`);
    expect((await env.BUCKET.list({ prefix: `outputs/${id}/` })).objects).toEqual([]);
  });
});
