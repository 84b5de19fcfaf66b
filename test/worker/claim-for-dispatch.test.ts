import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { dispatchJob } from "../../src/jobs/lifecycle/dispatch-job.ts";
import { getJob } from "../../src/jobs/store/job-store.ts";
import { claimForDispatch } from "../../src/jobs/transitions/claim-for-dispatch.ts";
import { createServices } from "../../src/services.ts";
import { api, createAccount, insertQueuedJob, jobStatus } from "./helpers.ts";

describe("active jobs and credits per account", () => {
  it("rejects a job dispatched while the account already has the maximum queued or running", async () => {
    const own = await createAccount();
    const services = createServices({ ...env, MAX_ACTIVE_JOBS_PER_ACCOUNT: "2" });
    const ids = [await insertQueuedJob(own.accountId), await insertQueuedJob(own.accountId)];
    await new Promise((r) => setTimeout(r, 5));
    const third = await insertQueuedJob(own.accountId);
    expect(await dispatchJob(services, (await getJob(env.DB, third))!)).toEqual({ done: true });
    const job = (await api(own.key, "GET", `/v1/jobs/${third}`)).body;
    expect(job).toMatchObject({
      status: "rejected",
      errorCode: "TOO_MANY_ACTIVE_JOBS",
      creditsCharged: 0,
      attempts: 0,
    });
    for (const id of ids) expect(await jobStatus(id)).toBe("queued");
  });

  it("lets concurrent starts hand over only as many jobs as the balance covers; the rest wait, and none when it is spent", async () => {
    const own = await createAccount(2);
    const ids = await Promise.all(Array.from({ length: 5 }, () => insertQueuedJob(own.accountId)));
    const limits = { maxActive: 50, creditsPerSecond: 1 };
    const claimed = await Promise.all(ids.map((id) => claimForDispatch(env.DB, id, new Date().toISOString(), limits)));
    expect(claimed.filter(Boolean)).toHaveLength(2);
    const waiting = ids[claimed.indexOf(false)];
    const services = createServices(env);
    expect(await dispatchJob(services, (await getJob(env.DB, waiting))!)).toMatchObject({
      state: { phase: "dispatch" },
      delayMs: expect.any(Number),
    });
    expect(await jobStatus(waiting)).toBe("queued");
    await env.DB.prepare("UPDATE accounts SET credit_balance = 0 WHERE id = ?1").bind(own.accountId).run();
    expect(await dispatchJob(services, (await getJob(env.DB, waiting))!)).toEqual({ done: true });
    expect((await api(own.key, "GET", `/v1/jobs/${waiting}`)).body).toMatchObject({
      status: "rejected",
      errorCode: "INSUFFICIENT_CREDITS",
    });
  });
});
