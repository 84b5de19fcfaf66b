import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { median, percentile, writeBenchmarkSection } from "../../bench/benchmarks-doc.ts";
import { apiClient, isFinished } from "../support/api-client.ts";
import type { DevStack } from "../support/dev-stack.ts";
import { mediaFixtures } from "../support/media-fixtures.ts";
import { labOrReason, startContainerStack, stopContainerStack } from "./container-stack.ts";
import { labDocker, runningRunnerContainers } from "./lab-docker.ts";
import { startTestHosts, TEST_HOSTS, type TestHosts } from "./test-hosts.ts";

/*
 * A small job's latency through a cold container (CONTAINER_PLACEMENT=per-job: a new one per job)
 * and a warm one (the warm pool, the default), each paired with the same ffprobe run bare on
 * this machine in the same run. Figures go to .cache/container-latency.md, and into
 * docs/benchmarks.md when FFJOBS_RECORD_BENCHMARKS=1. Nothing here asserts a time: it asserts that
 * the jobs complete and where they ran.
 */

/** Three a placement: enough for the report's medians; CI pays for every round (and runs containers twice: as root and user-namespace remapped). */
const ROUNDS = 3;
/** Polls this far apart: a job that ends sooner was noticed through its runner's notification. */
const POLL_MS = 30_000;
const skipReason = await labOrReason();
const fx = mediaFixtures();
const root = resolve(import.meta.dirname, "../..");
let hosts: TestHosts;
const media = { url: `http://${TEST_HOSTS.media.name}` };
let stack: DevStack | undefined;
const figures: Record<string, { job: number[]; bare: number[] }> = {};

function bareFfprobeMs(): number {
  const t0 = performance.now();
  execFileSync("ffprobe", ["-v", "error", "-show_format", fx.clip], { stdio: "ignore" });
  return performance.now() - t0;
}

/** Runs `rounds` small ffprobe jobs one after another, each paired with a bare ffprobe run. */
async function measure(label: string, rounds: number, afterEach: () => Promise<void> | void = () => {}): Promise<void> {
  const api = apiClient(stack!.baseUrl, stack!.apiKey);
  figures[label] = { job: [], bare: [] };
  for (let i = 0; i < rounds; i++) {
    const created = await api.call("POST", "/v1/jobs", {
      binary: "ffprobe",
      input: [{ type: "url", url: `${media.url}/clip.mp4` }],
      ffmpegArgs: ["-v", "error", "-show_format", "{{input0}}"],
    });
    const job = await api.waitUntil(created.body.id, isFinished, POLL_MS / 2, 25);
    expect(job.status).toBe("completed");
    const jobMs = Date.parse(job.finishedAt) - Date.parse(job.createdAt);
    expect(jobMs).toBeLessThan(POLL_MS / 3);
    figures[label].job.push(jobMs);
    figures[label].bare.push(bareFfprobeMs());
    await afterEach();
  }
}

/** A running container's identity: its name and when it (last) started. */
const runnerIdentity = () =>
  runningRunnerContainers().map(
    (name) => `${name}@${labDocker(["inspect", "-f", "{{.State.StartedAt}}", name]).trim()}`,
  );

describe.skipIf(skipReason)("job latency through cold and warm containers", () => {
  beforeAll(async () => {
    hosts = await startTestHosts(fx.dir);
  });
  afterAll(async () => {
    await stopContainerStack(stack);
    hosts?.close();
    writeReport();
  });

  it("cold: with CONTAINER_PLACEMENT=per-job every job starts a container of its own", async () => {
    stack = await startContainerStack(hosts, {
      RUNNER_POLL_INTERVAL_MS: String(POLL_MS),
      CONTAINER_PLACEMENT: "per-job",
    });
    try {
      // Each job's container ends with it (just after the job is recorded finished).
      await measure("cold (a new container per job: per-job)", ROUNDS, () =>
        expect.poll(runningRunnerContainers, { timeout: 15_000 }).toEqual([]),
      );
    } finally {
      await stopContainerStack(stack);
      stack = undefined;
    }
  });

  it("warm: with the warm pool (the default) the running container serves the next job", async () => {
    stack = await startContainerStack(hosts, { RUNNER_POLL_INTERVAL_MS: String(POLL_MS) });
    await measure("first job on the pool (cold)", 1);
    const warm = runnerIdentity();
    expect(warm).toHaveLength(1);
    await measure("warm (pool, container already running)", ROUNDS, () => expect(runnerIdentity()).toEqual(warm));
  });
});

function writeReport(): void {
  const rows = Object.entries(figures).map(([label, f]) => {
    const ratio = median(f.job) / median(f.bare);
    return `| ${label} | ${f.job.length} | ${Math.round(median(f.job))} | ${Math.round(percentile(f.job, 95))} | ${Math.round(median(f.bare))} | ${ratio.toFixed(1)}× |`;
  });
  if (!rows.length) return;
  const report = `## Job latency through a real container (container suite)

\`npm run test:containers\` (test/container/container-latency.test.ts): small ffprobe jobs (3 s 320x240 MP4 from
a URL on the suite's test host, by name) one after another through \`npm run dev:containers\` (wrangler dev, containers on the lab's
Docker engine, egress through the Worker); the runner notifies its coordinator (which polls only every 30 s). Job time is \`createdAt → finishedAt\`
(server clock, ms); each job is paired with the same ffprobe run bare on this machine in the same run.

| placement | jobs | job p50 | job p95 | bare ffprobe p50 | job / bare |
|---|---|---|---|---|---|
${rows.join("\n")}

Measured ${new Date().toISOString().slice(0, 10)} on ${process.platform}/${process.arch}, Node ${process.version}, Docker ${dockerVersion()}.`;
  mkdirSync(join(root, ".cache"), { recursive: true });
  writeFileSync(join(root, ".cache/container-latency.md"), `${report}\n`);
  console.log(`\n${report}\n`);
  if (process.env.FFJOBS_RECORD_BENCHMARKS === "1") writeBenchmarkSection("container-latency", report);
}

function dockerVersion(): string {
  try {
    return execFileSync("/usr/bin/docker", ["--version"], { encoding: "utf8" }).match(/version ([^,\s]+)/)?.[1] ?? "?";
  } catch {
    return "?";
  }
}
