import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createServices } from "../../src/services.ts";
import { tickJob } from "../../src/jobs/lifecycle/tick-job.ts";
import { getJob } from "../../src/jobs/store/job-store.ts";
import { cancelJob } from "../../src/jobs/lifecycle/cancel-job.ts";
import { api, coordinator, createAccount, insertQueuedJob, jobStatus, probeSpec, recordingRunner } from "./helpers.ts";

/* The round trips a job's start and end no longer make, and what must still hold without them. */

let account: { accountId: string; key: string };
beforeAll(async () => {
  account = await createAccount();
});

describe("a coordinator started with the row its creator wrote", () => {
  it("hands nothing to a runner when the job was canceled after that row was read: the claim is guarded", async () => {
    const id = await insertQueuedJob(account.accountId, probeSpec("clip.mp4"));
    const stale = (await getJob(env.DB, id))!;
    expect(await cancelJob(createServices(env), id)).toBe(true);
    const { calls, client } = recordingRunner(() => Response.json({}));
    const step = await tickJob(
      { ...createServices(env), runner: client },
      { jobId: id, phase: "dispatch", misses: 0 },
      stale,
    );
    expect(step).toEqual({ done: true });
    expect(calls.filter((c) => c.startsWith("POST"))).toEqual([]);
    expect(await jobStatus(id)).toBe("canceled");
    expect((await getJob(env.DB, id))!.attempts).toBe(0);
  });

  // With outputs, through the whole stack: test/slice/every-interface.test.ts (this project stores none).
  it("ends a job created with Prefer: wait, the coordinator starting from the inserted row", async () => {
    const { args, inputs } = probeSpec("clip.mp4");
    const res = await api(
      account.key,
      "POST",
      "/v1/jobs",
      { binary: "ffprobe", ffmpegArgs: args, inputs },
      { Prefer: "wait=30" },
    );
    expect(res.status).toBe(200);
    expect(res.body, JSON.stringify(res.body).slice(0, 600)).toMatchObject({ status: "completed", outputs: [] });
    expect((await getJob(env.DB, res.body.id))!.attempts).toBe(1);
    // Read again: GET's one round trip for the job and its outputs says the same.
    const again = await api(account.key, "GET", `/v1/jobs/${res.body.id}`);
    expect(again.body).toMatchObject({ id: res.body.id, status: "completed", outputs: [] });
  });
});

describe("a watch tick, which asks its runner while it reads the job", () => {
  it("ends the tick of a job already over even when the runner's answer is an error nobody needs", async () => {
    const id = await insertQueuedJob(account.accountId, probeSpec("clip.mp4"));
    expect(await cancelJob(createServices(env), id)).toBe(true);
    const { calls, client } = recordingRunner(() => new Response("not json", { status: 500 }));
    const step = await tickJob({ ...createServices(env), runner: client }, { jobId: id, phase: "watch", misses: 0 });
    expect(step).toEqual({ done: true });
    // Asked (at once, beside the read), then released.
    expect(calls[0]).toMatch(/^GET /);
    expect(calls.some((c) => c.startsWith("DELETE"))).toBe(true);
  });
});

describe("a wait for a job's end", () => {
  it("returns at once when the coordinator has already ended the job, instead of holding a whole slice", async () => {
    const id = await insertQueuedJob(account.accountId, probeSpec("clip.mp4"));
    const stub = coordinator(id);
    await runInDurableObject(stub, (c) => c.start(id));
    for (let i = 0; i < 300 && (await jobStatus(id)) !== "completed"; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await jobStatus(id)).toBe("completed");
    const t0 = Date.now();
    // A minute's wait: the test's own timeout (5 s) fails it if the ending is not remembered.
    expect(await stub.waitForEnd(60_000)).toBe(true);
    expect(Date.now() - t0).toBeLessThan(5_000);
  });
});
