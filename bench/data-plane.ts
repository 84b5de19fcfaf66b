// The data plane's throughput: the runner and its sandboxed ffmpeg, driven directly the way a
// coordinator drives it (the runner protocol over HTTP), against `xargs -P2` of the same bare
// commands on the same machine in the same run. The control plane (workerd) is measured apart
// (`npm run bench:cpu`): on two shared cores it would price itself into this figure.
import { execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { startPutReceiver } from "../test/support/put-receiver.ts";
import { startRunner } from "../test/support/runner-process.ts";
import { startStaticServer } from "../test/support/static-server.ts";
import { freePort } from "../test/support/free-port.ts";
import { jobRequest, runnerApi } from "../test/runner/runner-api.ts";
import { MAX_FOLLOW_WAIT_MS, type RunnerJobStatus } from "../src/runner/runner-protocol.ts";

export type DataPlaneOp = {
  name: string;
  binary: "ffmpeg" | "ffprobe";
  input: string;
  output?: string;
  args: string[];
};

export type DataPlaneFigures = {
  bareMs: number;
  runnerMs: number;
  bareCpuMsPerJob: number;
  /** The runner's Node process and its sandboxes' processes. */
  runnerCpuMsPerJob: number;
  /** The runner's Node process alone: steadier run to run than the totals, whose ffmpeg share moves with the machine. */
  runnerOwnCpuMsPerJob: number;
};

/**
 * `jobs` runs of `op`: wall ms for bare `xargs -P2` and through the runner at its concurrency, and the
 * CPU each used per job (bare: xargs and its ffmpegs; the runner: its own and its sandboxes' processes).
 */
export async function dataPlaneThroughput(dir: string, op: DataPlaneOp, jobs: number): Promise<DataPlaneFigures> {
  const media = await startStaticServer(dir);
  const storage = await startPutReceiver();
  const runner = await startRunner(await freePort(), { RUNNER_CONCURRENCY: String(availableParallelism()) });
  const api = runnerApi(runner);
  try {
    const bareArgv = (i: number) =>
      op.args.map((a) =>
        a === "{{in}}" ? `${media.url}/${op.input}` : a === "{{out}}" ? `/tmp/ffjobs-dp-${i}-${op.output}` : a,
      );
    const commands = Array.from({ length: jobs }, (_, i) =>
      [op.binary, ...(op.binary === "ffmpeg" ? ["-y", "-v", "error"] : []), ...bareArgv(i)]
        .map((a) => `'${a}'`)
        .join(" "),
    );
    const bareCpuBefore = cpuMs("self", "children");
    const t0 = performance.now();
    await xargs(commands);
    const bareMs = performance.now() - t0;
    const bareCpuMsPerJob = (cpuMs("self", "children") - bareCpuBefore) / jobs;
    const requests = Array.from({ length: jobs }, () =>
      jobRequest({
        binary: op.binary,
        args: op.args,
        timeoutMs: 120_000,
        inputs: [{ name: "in", url: `${media.url}/${op.input}`, fileName: op.input, trusted: false }],
        outputs: op.output
          ? [
              {
                name: "out",
                fileName: op.output,
                contentType: "application/octet-stream",
                uploadUrl: `${storage.url}/${crypto.randomUUID()}`,
              },
            ]
          : [],
      }),
    );
    const runnerCpuBefore = cpuMs(runner.child.pid!);
    const runnerOwnCpuBefore = cpuMs(runner.child.pid!, "own");
    const t1 = performance.now();
    // All handed over at once, as coordinators would; the runner queues beyond its concurrency.
    for (const req of requests) await api.submit(req);
    for (const req of requests) {
      const done = await heldUntilFinished(api, req.jobId);
      if (done.outcome?.status !== "completed")
        throw new Error(`${op.name}: ${JSON.stringify(done.outcome).slice(0, 300)}`);
    }
    const runnerMs = performance.now() - t1;
    return {
      bareMs,
      runnerMs,
      bareCpuMsPerJob,
      runnerCpuMsPerJob: (cpuMs(runner.child.pid!) - runnerCpuBefore) / jobs,
      runnerOwnCpuMsPerJob: (cpuMs(runner.child.pid!, "own") - runnerOwnCpuBefore) / jobs,
    };
  } finally {
    runner.stop();
    await media.close();
    await storage.close();
  }
}

const TICK_MS = 1000 / Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());

/** A process's CPU ms from /proc: its own and its waited-for children's, or only one of the two. */
function cpuMs(pid: number | "self", part: "all" | "children" | "own" = "all"): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const [utime, stime, cutime, cstime] = stat
    .slice(stat.lastIndexOf(")") + 2)
    .split(" ")
    .slice(11, 15)
    .map(Number);
  const own = utime + stime;
  const children = cutime + cstime;
  return (part === "children" ? children : part === "own" ? own : own + children) * TICK_MS;
}

/**
 * Waits for a job's end as a coordinator does in a job's first minute: one status call at a time, held
 * by the runner until the job finishes (docs/architecture.md, "Push, not poll"). A poll every few
 * milliseconds would charge the runner's CPU for the benchmark's own asking.
 */
async function heldUntilFinished(api: ReturnType<typeof runnerApi>, jobId: string): Promise<RunnerJobStatus> {
  const deadline = Date.now() + 600_000;
  for (;;) {
    const res = await api.fetch(`/jobs/${jobId}?until=finished&waitMs=${MAX_FOLLOW_WAIT_MS}`);
    if (!res.ok) throw new Error(`runner answered HTTP ${res.status} for job ${jobId}`);
    const status = (await res.json()) as RunnerJobStatus;
    if (status.state === "finished") return status;
    if (Date.now() > deadline) throw new Error(`runner job ${jobId} did not finish in 10 minutes`);
  }
}

/** `xargs -P2` of the commands, without blocking this process (it serves their input). */
function xargs(commands: string[]): Promise<void> {
  const child = spawn("xargs", ["-P2", "-I{}", "sh", "-c", "{}"], { stdio: ["pipe", "ignore", "inherit"] });
  child.stdin.end(commands.join("\n"));
  return new Promise((resolve, reject) =>
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`xargs exited ${code}`)))),
  );
}
