import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { countUncountedJobs } from "../../src/maintenance/sweep-metrics.ts";
import { recordFinishedJob } from "../../src/metrics/metric-store.ts";
import { createServices } from "../../src/services.ts";
import { api, createAccount, insertQueuedJob, isTerminalJob, mediaUrl, waitForJob } from "./helpers.ts";
import { writeEnding } from "../../src/jobs/transitions/write-ending.ts";

/**
 * GET /v1/admin/metrics over real jobs: each finished job counted once in the hourly rollups, by
 * status and error code, with its queue wait, run time, bytes and credits; webhook attempts by
 * outcome; per account; only for an operator's key. (Stored outputs' bytes and the charts: the
 * dashboard's test, test/e2e/dashboard.test.ts, over the whole local stack.)
 */
let operator: { accountId: string; key: string };
let user: { accountId: string; key: string };
let userName: string;

async function makeOperator(): Promise<{ accountId: string; key: string }> {
  const a = await createAccount();
  await env.DB.prepare("UPDATE accounts SET operator = 1 WHERE id = ?1").bind(a.accountId).run();
  return a;
}

const probe = (file: string) => ({
  binary: "ffprobe",
  inputs: { m: { type: "url", url: mediaUrl(file) } },
  ffmpegArgs: ["-v", "error", "-show_format", "{{m}}"],
});

async function runJob(key: string, body: object): Promise<any> {
  const created = await api(key, "POST", "/v1/jobs", body);
  expect(created.status, JSON.stringify(created.body)).toBe(202);
  return waitForJob(key, created.body.id, isTerminalJob);
}

const metrics = async (key: string, query = "") => api(key, "GET", `/v1/admin/metrics${query}`);

beforeAll(async () => {
  operator = await makeOperator();
  user = await createAccount();
  userName = `acct-${user.accountId}`;
});

describe("operator metrics", () => {
  it("answer only an operator's key", async () => {
    const res = await metrics(user.key);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: "FORBIDDEN", error: expect.stringMatching(/operator/) });
    expect((await metrics(operator.key)).status).toBe(200);
  });

  it("count each finished job once, by status and error code, with its wait, run time, bytes and credits", async () => {
    const completed = await runJob(user.key, probe("clip.mp4"));
    expect(completed.status).toBe("completed");
    const second = await runJob(user.key, probe("clip.mp4"));
    const failed = await runJob(user.key, probe("missing.mp4"));
    expect(failed).toMatchObject({ status: "failed", errorCode: "INPUT_FETCH_FAILED" });
    const queued = await insertQueuedJob(user.accountId);
    expect((await api(user.key, "POST", `/v1/jobs/${queued}/cancel`)).status).toBe(200);

    const res = await metrics(operator.key, `?account=${userName}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const m = res.body;
    expect(m.account).toBe(userName);
    expect(m.jobs).toEqual({ completed: 2, failed: 1, canceled: 1 });
    expect(m.errors).toEqual({ INPUT_FETCH_FAILED: 1, CANCELED: 1 });
    // The two that ran started; the failed one too (its runner fetched and failed); the canceled one never did.
    expect(m.queueWaitMs.count).toBe(3);
    expect(m.runMs.count).toBe(3);
    const runs = [completed, second, failed].map((j) => Date.parse(j.finishedAt) - Date.parse(j.startedAt));
    // A percentile is its bucket's top: at most 9 % above the true value, never below it.
    expect(m.runMs.p99Ms).toBeGreaterThanOrEqual(Math.max(...runs));
    expect(m.runMs.p99Ms).toBeLessThanOrEqual(Math.ceil(Math.max(...runs) * 1.1) + 1);
    expect(m.credits).toBe(completed.creditsCharged + second.creditsCharged + failed.creditsCharged);
    const read = (j: any) => Object.values(j.inputReads ?? {}).reduce((n: number, r: any) => n + r.originBytes, 0);
    expect(m.bytesIn).toBe(read(completed) + read(second) + read(failed));
    expect(m.bytesIn).toBeGreaterThan(0);
    expect(m.bytesOut).toBe(0);
    // A local runner has no containers.
    expect(m.containerStarts).toEqual({ cold: 0, warm: 0 });
    expect(m.accounts).toEqual([
      { account: userName, jobs: 4, failed: 1, credits: m.credits, bytesIn: m.bytesIn, bytesOut: m.bytesOut },
    ]);
    // Counting again changes nothing.
    for (const j of [completed, second, failed]) expect(await recordFinishedJob(env.DB, j.id)).toBe(false);
    expect((await metrics(operator.key, `?account=${userName}`)).body.jobs).toEqual({
      completed: 2,
      failed: 1,
      canceled: 1,
    });
  });

  it("draw the period hour by hour, empty hours included, and day by day past a week", async () => {
    const hourly = (await metrics(operator.key, `?account=${userName}`)).body;
    expect(hourly.granularity).toBe("hour");
    expect(hourly.series).toHaveLength(24);
    const now = hourly.series.at(-1);
    expect(Date.parse(now.at)).toBeLessThanOrEqual(Date.now());
    expect(now.jobs).toEqual({ completed: 2, failed: 1, canceled: 1 });
    expect(now.runP50Ms).toBeGreaterThan(0);
    expect(hourly.series.slice(0, -2).every((s: any) => Object.keys(s.jobs).length === 0 && s.runP50Ms === null)).toBe(
      true,
    );
    const until = new Date(Date.now() + 3_600_000).toISOString();
    const since = new Date(Date.now() - 30 * 86_400_000).toISOString();
    const daily = (await metrics(operator.key, `?account=${userName}&since=${since}&until=${until}`)).body;
    expect(daily.granularity).toBe("day");
    expect(daily.series.length).toBeGreaterThanOrEqual(30);
    // The day that holds the jobs is the last one begun: after 23:00 UTC `until` reaches into tomorrow,
    // whose bucket is empty.
    const today = daily.series.filter((s: any) => Date.parse(s.at) <= Date.now()).at(-1);
    expect(today.jobs).toEqual({ completed: 2, failed: 1, canceled: 1 });
  });

  it("count webhook attempts by outcome", async () => {
    const account = await createAccount();
    await env.DB.prepare("UPDATE accounts SET operator = 1 WHERE id = ?1").bind(account.accountId).run();
    // Nothing listens on port 9 of loopback: the attempt fails, and a test send is not retried.
    const sent = await api(account.key, "POST", "/v1/webhooks/test", { url: "http://127.0.0.1:9/hook" });
    expect(sent.body.ok).toBe(false);
    const m = (await metrics(account.key, `?account=acct-${account.accountId}`)).body;
    expect(m.webhookAttempts).toEqual({ delivered: 0, retrying: 0, failed: 1 });
  });

  it("count by the sweep a job whose end was recorded but not counted, once", async () => {
    const lost = await createAccount();
    const id = await insertQueuedJob(lost.accountId);
    const now = new Date().toISOString();
    // The end as the Worker wrote it before it died: terminal, not counted.
    await writeEnding(
      env.DB,
      id,
      {
        status: "failed",
        exitCode: null,
        runtimeSeconds: 0,
        creditsCharged: 0,
        errorCode: "RUNNER_LOST",
        errorMessage: "lost",
        stdout: null,
        stderrTail: null,
      },
      now,
    );
    const q = `?account=acct-${lost.accountId}`;
    expect((await metrics(operator.key, q)).body.jobs).toEqual({});
    await countUncountedJobs(createServices(env));
    await countUncountedJobs(createServices(env));
    expect((await metrics(operator.key, q)).body).toMatchObject({ jobs: { failed: 1 }, errors: { RUNNER_LOST: 1 } });
  });

  it("refuse a period that ends before it starts or is longer than metrics are kept, and an unknown account", async () => {
    const backwards = await metrics(operator.key, "?since=2026-11-02T00:00:00Z&until=2026-11-01T00:00:00Z");
    expect(backwards.status).toBe(400);
    expect(backwards.body.details[0].path).toEqual(["query", "since"]);
    const long = await metrics(operator.key, "?since=2026-01-01T00:00:00Z&until=2026-11-01T00:00:00Z");
    expect(long.status).toBe(400);
    expect(long.body.error).toMatch(/at most 92 days/);
    expect((await metrics(operator.key, "?account=nobody-here")).status).toBe(404);
    expect((await metrics(operator.key, "?since=yesterday")).body.details[0].path).toEqual(["query", "since"]);
  });
});
