import { createExecutionContext, env, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index.ts";
import { createServices, type Services } from "../../src/services.ts";
import { countedEnv } from "../../src/platform/invocation.ts";
import { InvocationBudget } from "../../src/platform/invocation-budget.ts";
import type { RunnerJobStatus, RunnerOutcome } from "../../src/runner/runner-protocol.ts";
import { createAccount, insertQueuedJob } from "./helpers.ts";

/**
 * An event stream held open across a compressed hour, through the real route, the real coordinator
 * and D1: the job's runner is a fake that reports one second of progress each time the coordinator
 * asks, on a fake clock (the coordinator's `now`), so an hour is 3,600 coordinator ticks driven as
 * fast as the stream takes them. The stream's request is one invocation, counted and refused as the
 * platform would past 1,000 D1 queries and 10,000 subrequests (src/platform/invocation-budget.ts): a
 * stream that read D1 at every tick (as it once did) broke the first by the 1,000th second; one that
 * asked its coordinator at every tick (as it then did: a subrequest each) made 3,600 an hour, and
 * would break the second within three hours of a job (or of waiting in line).
 */
const HOUR_S = 3600;
/** How long the test waits for the stream to deliver a tick's progress before it moves on. */
const DELIVERY_WAIT_MS = 200;

const until = async (done: () => boolean, ms: number) => {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 0));
};

describe("an event stream across a compressed hour-long job", () => {
  it("delivers every second's progress and the end in a handful of D1 queries and subrequests", {
    timeout: 240_000,
  }, async () => {
    const { accountId, key } = await createAccount();
    const jobId = await insertQueuedJob(accountId, { args: ["-i", "in.mp4", "-f", "null", "-"] });
    const stub = env.JOB_COORDINATOR.get(env.JOB_COORDINATOR.idFromName(jobId));
    const T0 = Date.now();
    let second = 0;
    const report = (): RunnerJobStatus => {
      second++;
      if (second <= HOUR_S) {
        return {
          jobId,
          state: "running",
          startedAt: new Date(T0).toISOString(),
          outcome: null,
          progress: { percent: (100 * second) / HOUR_S, outTimeSeconds: second, speed: 1, frames: second * 30 },
        };
      }
      const outcome: RunnerOutcome = {
        status: "completed",
        exitCode: 0,
        runtimeMs: HOUR_S * 1000,
        errorCode: null,
        errorMessage: null,
        stdout: "",
        stderrTail: "",
        outputs: [],
        timings: { fetchMs: 0, runMs: HOUR_S * 1000, storeMs: 0 },
        finishedAt: new Date(T0 + second * 1000).toISOString(),
      };
      return { jobId, state: "finished", startedAt: new Date(T0).toISOString(), progress: null, outcome };
    };
    const runner = {
      start: async () => ({ jobId, state: "waiting", startedAt: null, progress: null, outcome: null }),
      status: async () => report(),
      cancel: async () => null,
      release: async () => {},
    };
    await runInDurableObject(stub, (coordinator) => {
      // The coordinator's services for each tick: the real ones (D1 counted per tick), this runner and
      // clock, and no alarm-paced ticks in between (the test drives every tick with a notification).
      (coordinator as unknown as { newServices: () => Services }).newServices = () => {
        const real = createServices(env);
        return {
          ...real,
          runner: runner as unknown as Services["runner"],
          now: () => new Date(T0 + second * 1000),
          config: { ...real.config, runnerPollIntervalMs: 60_000 },
        };
      };
    });

    // The stream's one invocation, with the platform's limits, counted here so the test can say what it spent.
    const budget = new InvocationBudget({ d1Queries: 1000, subrequests: 10_000 });
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request(`https://ffjobs.test/v1/jobs/${jobId}/events`, { headers: { authorization: `Bearer ${key}` } }),
      countedEnv(env, budget),
      ctx,
    );
    expect(res.status).toBe(200);
    const events: { event: string; status: string; second: number | null }[] = [];
    let streamEnded = false;
    const reading = (async () => {
      let buffer = "";
      for await (const chunk of res.body!.pipeThrough(new TextDecoderStream())) {
        buffer += chunk;
        for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (\w+)$/m.exec(block)?.[1];
          if (!event) continue;
          const job = JSON.parse(/^data: (.*)$/m.exec(block)![1]);
          events.push({ event, status: job.status, second: job.progress?.outTimeSeconds ?? null });
        }
      }
    })().finally(() => {
      streamEnded = true;
    });
    const delivered = () => events.at(-1)?.second ?? 0;

    expect(await stub.start(jobId)).toBe("ticking");
    // Until the job ends, or the stream does (a stream that broke the D1 limit errors here at once).
    while (second <= HOUR_S && !streamEnded) {
      const asked = second;
      await stub.notify();
      await until(() => second > asked, 5_000);
      await until(() => delivered() >= second || second > HOUR_S, DELIVERY_WAIT_MS);
    }
    await reading;
    await waitOnExecutionContext(ctx);

    const statuses = events.filter((e) => e.event === "status").map((e) => e.status);
    expect(statuses).toEqual(["queued", "running", "completed"]);
    const seconds = events.filter((e) => e.status === "running").map((e) => e.second ?? 0);
    // Progress as the coordinator had it at each tick the stream was waiting for (nearly all of them).
    expect(seconds.length).toBeGreaterThan(HOUR_S * 0.9);
    expect(seconds).toEqual([...seconds].sort((a, b) => a - b));
    expect(seconds.at(-1)).toBe(HOUR_S);
    // Auth, rate limit, the job at the start, at the change to running, at the end and its outputs;
    // the coordinator's feed once.
    console.log(
      `an hour-long event stream: ${events.length} events, ${budget.d1Queries} D1 queries, ${budget.subrequests} subrequests ${JSON.stringify(budget.byKind)}`,
    );
    expect(budget.d1Queries).toBeLessThanOrEqual(10);
    expect(budget.byKind["durable-object"]).toBeLessThanOrEqual(2);
    expect(budget.subrequests).toBeLessThanOrEqual(12);
    const row = await env.DB.prepare("SELECT status, progress_json FROM jobs WHERE id = ?1")
      .bind(jobId)
      .first<{ status: string }>();
    expect(row?.status).toBe("completed");
  });
});
