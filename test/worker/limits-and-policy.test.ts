import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { app } from "../../src/api/app.ts";
import { dispatchJob } from "../../src/jobs/lifecycle/dispatch-job.ts";
import { getJob } from "../../src/jobs/store/job-store.ts";
import { claimForDispatch } from "../../src/jobs/transitions/claim-for-dispatch.ts";
import { createServices } from "../../src/services.ts";
import { api, countRows, createAccount, insertQueuedJob, jobStatus } from "./helpers.ts";

let account: { accountId: string; key: string };
beforeAll(async () => {
  account = await createAccount();
});

describe("request rate per API key", () => {
  it("answers 429 RATE_LIMITED with Retry-After once a key's budget for writes is spent, without touching other keys or its reads", async () => {
    const limited = { ...env, RATE_LIMIT_PER_MINUTE: "3", READ_RATE_LIMIT_PER_MINUTE: "5" };
    const { key } = await createAccount();
    const call = (k: string, method = "POST") =>
      app.fetch(new Request(`https://ffjobs.test/v1/${method === "GET" ? "jobs" : "files"}`, {
        method, headers: { Authorization: `Bearer ${k}`, "Content-Type": "application/json" }, body: method === "GET" ? undefined : JSON.stringify({ fileName: "a.mp4", contentType: "video/mp4" }),
      }), limited);
    for (let i = 0; i < 3; i++) expect((await call(key)).status).toBe(201);
    const refused = await call(key);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toEqual({ error: expect.stringMatching(/retry in \d+ s/), code: "RATE_LIMITED" });
    // Reads (polls, waits, event streams) have a budget of their own.
    for (let i = 0; i < 5; i++) expect((await call(key, "GET")).status).toBe(200);
    expect((await call(key, "GET")).status).toBe(429);
    const other = await createAccount();
    expect((await call(other.key)).status).toBe(201);
  });
});

describe("active jobs and credits per account", () => {
  it("rejects a job dispatched while the account already has the maximum queued or running", async () => {
    const own = await createAccount();
    const services = createServices({ ...env, MAX_ACTIVE_JOBS_PER_ACCOUNT: "2" });
    const ids = [await insertQueuedJob(own.accountId), await insertQueuedJob(own.accountId)];
    await new Promise((r) => setTimeout(r, 5));
    const third = await insertQueuedJob(own.accountId);
    expect(await dispatchJob(services, (await getJob(env.DB, third))!)).toEqual({ done: true });
    const job = (await api(own.key, "GET", `/v1/jobs/${third}`)).body;
    expect(job).toMatchObject({ status: "rejected", errorCode: "TOO_MANY_ACTIVE_JOBS", creditsCharged: 0, attempts: 0 });
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
    expect(await dispatchJob(services, (await getJob(env.DB, waiting))!)).toMatchObject({ state: { phase: "dispatch" }, delayMs: expect.any(Number) });
    expect(await jobStatus(waiting)).toBe("queued");
    await env.DB.prepare("UPDATE accounts SET credit_balance = 0 WHERE id = ?1").bind(own.accountId).run();
    expect(await dispatchJob(services, (await getJob(env.DB, waiting))!)).toEqual({ done: true });
    expect((await api(own.key, "GET", `/v1/jobs/${waiting}`)).body).toMatchObject({ status: "rejected", errorCode: "INSUFFICIENT_CREDITS" });
  });
});

describe("GET /v1/policy", () => {
  it("publishes the options, formats, filters, injected options and limits that are enforced", async () => {
    expect((await api(null, "GET", "/v1/policy")).status).toBe(401);
    const { body } = await api(account.key, "GET", "/v1/policy");
    expect(body.options.ffmpeg.withValue).toContain("filter_complex");
    expect(body.options.refused).toMatchObject({ protocol_whitelist: expect.any(String), vstats_file: expect.any(String) });
    expect(body.formats.allowed).toContain("mp4");
    expect(body.formats.allowed).not.toContain("concat");
    expect(body.filters.allowed).toContain("scale");
    expect(body.filters.allowed).not.toContain("movie");
    expect(body.filters.sources.maxSeconds).toBe(3600);
    expect(body.injected.beforeEachInput).toContain("-protocol_whitelist");
    expect(body.limits).toMatchObject({ args: 256, inputsPerJob: 16, maxActiveJobsPerAccount: 50, requestsPerMinutePerKey: 600 });
    expect(body.steps.max).toBe(8);
    expect(body.directoryOutputs).toMatchObject({ maxFiles: 1000, plainNameOptions: ["master_pl_name", "hls_fmp4_init_filename"] });
    expect(body.directoryOutputs.hlsFlags).not.toContain("delete_segments");
    expect(body.formats.allowed).toContain("hls");
  });
});

describe("argument policy at the API", () => {
  it.each([
    [["-i", "/etc/passwd", "{{out}}"], "1"],
    [["-i", "{{in}}", "-vf", "movie=/etc/passwd", "{{out}}"], "3"],
    [["-i", "{{in}}", "-vstats_file", "/tmp/x", "{{out}}"], "2"],
    [["-f", "concat", "-i", "{{in}}", "{{out}}"], "1"],
    [["-listen", "1", "-i", "{{in}}", "{{out}}"], "0"],
    [["-i", "{{in}}", "-af", "ladspa=file=/tmp/x.so", "{{out}}"], "3"],
    // What a filter denylist let through: now 400s at the graph's argument.
    [["-i", "{{in}}", "-vf", "cellauto=f=/etc/passwd", "{{out}}"], "3"],
    [["-i", "{{in}}", "-vf", "curves=psfile=/etc/passwd", "{{out}}"], "3"],
    [["-i", "{{in}}", "-vf", "curves=preset=vintage:plot=/tmp/x", "{{out}}"], "3"],
    [["-i", "{{in}}", "-lavfi", "[0:v][0:v]vmafmotion=stats_file=/tmp/x", "{{out}}"], "3"],
    [["-i", "{{in}}", "-filter_complex", "testsrc[t];[0:v][t]overlay", "{{out}}"], "3"],
  ])("refuses %j with a 400 at ffmpegArgs/%s and stores nothing", async (ffmpegArgs, index) => {
    const before = await countRows("jobs");
    const res = await api(account.key, "POST", "/v1/jobs", {
      inputs: { in: { type: "url", url: "https://media.example.com/a.mp4" } }, outputs: { out: { fileName: "o.mp4" } }, ffmpegArgs,
    });
    expect(res.status).toBe(400);
    expect(res.body.details).toContainEqual({ path: ["ffmpegArgs", index], message: expect.any(String), code: "custom" });
    expect(await countRows("jobs")).toBe(before);
  });
});
