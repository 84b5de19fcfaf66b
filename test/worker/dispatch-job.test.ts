import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { createServices } from "../../src/services.ts";
import { createRunnerClient } from "../../src/runner/runner-client.ts";
import { dispatchJob } from "../../src/jobs/lifecycle/dispatch-job.ts";
import { tickJob } from "../../src/jobs/lifecycle/tick-job.ts";
import type { NextTick } from "../../src/jobs/lifecycle/tick-state.ts";
import { CAPACITY_RETRY_MS } from "../../src/jobs/lifecycle/retry-policy.ts";
import { getJob } from "../../src/jobs/store/job-store.ts";
import { createAccount, insertQueuedJob, probeSpec } from "./helpers.ts";

let account: { accountId: string; key: string };
beforeAll(async () => {
  account = await createAccount();
});

describe("a job's hand-over to its runner", () => {
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
      expect(await dispatchJob(services, (await getJob(env.DB, id))!)).toEqual({
        state: { jobId: id, phase: "dispatch", misses: 0 },
        delayMs: CAPACITY_RETRY_MS,
      });
      expect(await getJob(env.DB, id)).toMatchObject({ status: "queued", attempts: 0, dispatched_at: null });
    }
    for (let step: NextTick = await dispatchJob(createServices(env), (await getJob(env.DB, id))!); !step.done; )
      step = await tickJob(createServices(env), step.state);
    expect(await getJob(env.DB, id)).toMatchObject({ status: "completed", attempts: 1 });
  });
});
