import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isFinished } from "../support/api-client.ts";
import type { DevStack } from "../support/dev-stack.ts";
import { mediaFixtures } from "../support/media-fixtures.ts";
import { startStaticServer } from "../support/static-server.ts";
import {
  INITIAL_CREDITS,
  CAPACITY,
  allFinished,
  balanceOf,
  executeLocalD1,
  leftovers,
  mostConcurrentRuns,
  runnerPid,
  runsOf,
  startFaultStack,
} from "./fault-stack.ts";

/*
 * Faults injected into the real local stack (wrangler dev + runner + host ffmpeg, one runner slot):
 * every job must reach a terminal state within a bounded time, none may run twice, none be charged
 * twice or for a run that was lost, and no ffmpeg process or job folder may be left behind.
 */

/**
 * Never spawnSync while the stack serves this file's requests: a blocked event loop misses the server
 * closing an idle keep-alive connection, and the next request on it fails ("other side closed").
 */
const execFileAsync = promisify(execFile);
const fx = mediaFixtures();
let media: Awaited<ReturnType<typeof startStaticServer>>;
let s: Awaited<ReturnType<typeof startFaultStack>>;
const stack = (): DevStack => s.stack;

const longJob = () => ({
  inputs: { a: { type: "url", url: `${media.url}/clip.mp4` } },
  ffmpegArgs: ["-re", "-i", "{{a}}", "-f", "null", "-"],
});
const quickJob = () => ({
  inputs: { a: { type: "url", url: `${media.url}/clip.mp4` } },
  ffmpegArgs: ["-i", "{{a}}", "-f", "null", "-"],
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function create(body: unknown): Promise<string> {
  const res = await s.api.call("POST", "/v1/jobs", body);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.id;
}

const runningWithProgress = (id: string) =>
  s.api.waitUntil(id, (j) => isFinished(j) || (j.status === "running" && j.progress !== null), 30_000, 100);

async function expectNoLeftovers() {
  await expect
    .poll(() => leftovers(s.workDir), { timeout: 15_000, interval: 250 })
    .toEqual({ processes: [], folders: [] });
}

beforeAll(async () => {
  media = await startStaticServer(fx.dir);
  s = await startFaultStack("127.0.0.1");
});
afterAll(async () => {
  await s?.stack.stop();
  await media?.close();
});

describe("fault injection against the real local stack", () => {
  it("a runner killed mid-job: the launcher restarts it and the job runs again, to completion", async () => {
    const id = await create(longJob());
    await runningWithProgress(id);
    process.kill(runnerPid(stack()), "SIGKILL");
    const [job] = await allFinished(s.api, [id], 40_000);
    expect(job).toMatchObject({ status: "completed", attempts: 2 });
    expect(stack().logs()).toMatch(/runner exited \(SIGKILL\); restarting it/);
    await expectNoLeftovers();
  });

  it("a runner killed mid-split: the segments it held run again alone, the finished ones are kept, the output is whole", async () => {
    const id = await create({
      inputs: { a: { type: "url", url: `${media.url}/long.mp4` } },
      outputs: { out: { fileName: "out.mp4" } },
      ffmpegArgs: ["-i", "{{a}}", "-c:v", "libx264", "-preset", "veryfast", "{{out}}"],
      parallel: { segmentSeconds: 30, maxWorkers: 2 },
    });
    const tasks = async () =>
      (await s.api.call("GET", `/v1/jobs/${id}/tasks`)).body.data as {
        name: string;
        status: string;
        attempts: number;
      }[];
    await expect
      .poll(async () => (await tasks()).some((t) => t.status === "completed"), { timeout: 60_000, interval: 100 })
      .toBe(true);
    const before = await tasks();
    process.kill(runnerPid(stack()), "SIGKILL");
    const [job] = await allFinished(s.api, [id], 120_000);
    expect(job, JSON.stringify(job)).toMatchObject({ status: "completed" });
    const after = await tasks();
    for (const t of before) {
      const now = after.find((a) => a.name === t.name)!;
      if (t.status === "completed") expect(now.attempts, t.name).toBe(1);
      if (t.status === "running") expect(now.attempts, t.name).toBe(2);
    }
    expect(before.some((t) => t.status === "running")).toBe(true);
    const probe = JSON.parse(
      (
        await execFileAsync("ffprobe", [
          "-v",
          "error",
          "-count_packets",
          "-show_entries",
          "stream=nb_read_packets",
          "-of",
          "json",
          job.outputs[0].downloadUrl,
        ])
      ).stdout,
    );
    expect(Number(probe.streams[0].nb_read_packets)).toBe(120 * 30);
    await expectNoLeftovers();
  });

  it("a runner frozen during dispatch: the hand-over times out, is retried, and the job runs once", async () => {
    const pid = runnerPid(stack());
    process.kill(pid, "SIGSTOP");
    let id: string;
    try {
      id = await create(quickJob());
      // Past the 10 s hand-over timeout: the first attempt is lost while the runner is frozen.
      await sleep(12_000);
      expect((await s.api.call("GET", `/v1/jobs/${id}`)).body.status).toBe("queued");
    } finally {
      process.kill(pid, "SIGCONT");
    }
    const [job] = await allFinished(s.api, [id], 60_000);
    expect(job.status).toBe("completed");
    expect(job.attempts).toBeGreaterThanOrEqual(2);
    expect(runsOf(stack(), id)).toBe(1);
  });

  it("a lost queue message: the sweeper finds the job and it runs", async () => {
    const id = crypto.randomUUID();
    const spec = {
      binary: "ffprobe",
      args: ["-v", "error", "-show_format", "{{m}}"],
      inputs: { m: { type: "url", url: `${media.url}/clip.mp4` } },
      outputs: {},
      webhookUrl: null,
    };
    const now = new Date().toISOString();
    const sql = `INSERT INTO jobs (id, account_id, binary, mode, status, request_json, created_at, updated_at)
      SELECT '${id}', id, 'ffprobe', 'raw', 'queued', '${JSON.stringify(spec)}', '${now}', '${now}' FROM accounts WHERE name = 'faults'`;
    // Busy meets the sweeper's writes at times (seen once in CI): tried again, as nothing was written.
    await executeLocalD1(stack(), sql);
    const [job] = await allFinished(s.api, [id], 30_000);
    expect(job).toMatchObject({ status: "completed", attempts: 1 });
  });

  it(`a burst of ${10 * CAPACITY} jobs on ${CAPACITY} slot(s): all complete in order, queued until they get a slot`, async () => {
    const ids: string[] = [];
    for (let i = 0; i < 10 * CAPACITY; i++) ids.push(await create(quickJob()));
    // Until the runner gives a job its slot, the job shows queued: every job seen running has
    // already been started by the runner.
    while (true) {
      const jobs = await Promise.all(ids.map(async (id) => (await s.api.call("GET", `/v1/jobs/${id}`)).body));
      for (const j of jobs.filter((j) => j.status === "running")) expect(runsOf(stack(), j.id)).toBe(1);
      for (const j of jobs.filter((j) => j.status === "queued")) expect(j.startedAt).toBeNull();
      if (jobs.every(isFinished)) break;
      await sleep(100);
    }
    expect(mostConcurrentRuns(stack(), ids)).toBeLessThanOrEqual(CAPACITY);
    const jobs = await allFinished(s.api, ids, 1000);
    expect(jobs.map((j) => j.status)).toEqual(ids.map(() => "completed"));
    const waited = jobs.slice(CAPACITY);
    expect(waited.map((j) => j.id)).toEqual(
      [...waited].sort((a, b) => a.startedAt.localeCompare(b.startedAt)).map((j) => j.id),
    );
    for (const id of ids) expect(runsOf(stack(), id)).toBe(1);
  });

  it("a cancel storm: queued, waiting and running jobs all end canceled at once, charged only for time run", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push(await create(longJob()));
    await runningWithProgress(ids[0]);
    const answers = await Promise.all(
      ids.map(async (id, i) => {
        await sleep((i * 137) % 900);
        const t0 = Date.now();
        const res = await s.api.call("POST", `/v1/jobs/${id}/cancel`);
        return { ...res.body, answeredInMs: Date.now() - t0 };
      }),
    );
    for (const a of answers) {
      expect(a.status).toBe("canceled");
      expect(a.answeredInMs).toBeLessThan(5_000);
      expect(a.creditsCharged).toBe(a.runtimeSeconds);
    }
    expect(answers[0].runtimeSeconds).toBeGreaterThanOrEqual(1);
    expect(answers.slice(1).filter((a) => a.startedAt === null).length).toBeGreaterThan(0);
    await expectNoLeftovers();
    for (const id of ids) expect(runsOf(stack(), id)).toBeLessThanOrEqual(1);
  });

  it("the whole stack killed and restarted on the same state: running and waiting jobs all finish", async () => {
    const ids = [await create(longJob()), await create(longJob()), await create(quickJob())];
    await runningWithProgress(ids[0]);
    expect((await s.api.call("GET", `/v1/jobs/${ids[1]}`)).body.status).toBe("queued");
    await stack().crash();
    s = await startFaultStack("127.0.0.1", { env: stack().env, accountKey: s.accountKey });
    const jobs = await allFinished(s.api, ids, 90_000);
    expect(jobs.map((j) => j.status)).toEqual(["completed", "completed", "completed"]);
    expect(jobs[0].attempts).toBeGreaterThanOrEqual(2);
    await expectNoLeftovers();
  });

  it("charged every job exactly what it reports, once", async () => {
    const all: { creditsCharged: number }[] = [];
    for (let cursor: string | null = null; ; ) {
      const page: { data: { creditsCharged: number }[]; nextCursor: string | null } = (
        await s.api.call("GET", `/v1/jobs?limit=100${cursor ? `&cursor=${cursor}` : ""}`)
      ).body;
      all.push(...page.data);
      cursor = page.nextCursor;
      if (!cursor) break;
    }
    expect(all.length).toBeGreaterThanOrEqual(20);
    expect(await balanceOf(stack())).toBe(INITIAL_CREDITS - all.reduce((sum, j) => sum + j.creditsCharged, 0));
  });
});
