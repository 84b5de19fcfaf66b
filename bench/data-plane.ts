// The data plane's throughput: the runner and its sandboxed ffmpeg, driven directly the way a
// coordinator drives it (the runner protocol over HTTP), against `xargs -P2` of the same bare
// commands on the same machine in the same run. The control plane (workerd) is measured apart
// (`npm run bench:cpu`): on two shared cores it would price itself into this figure.
import { execFileSync } from "node:child_process";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { startPutReceiver } from "../test/support/put-receiver.ts";
import { startRunner } from "../test/support/runner-process.ts";
import { startStaticServer } from "../test/support/static-server.ts";
import { freePort } from "../test/support/free-port.ts";
import { jobRequest, runnerApi } from "../test/runner/runner-client.ts";

export type DataPlaneOp = { name: string; binary: "ffmpeg" | "ffprobe"; input: string; output?: string; args: string[] };

/** `jobs` runs of `op`: seconds for bare `xargs -P2`, seconds through the runner at its concurrency. */
export async function dataPlaneThroughput(dir: string, op: DataPlaneOp, jobs: number): Promise<{ bareMs: number; runnerMs: number }> {
  const media = await startStaticServer(dir);
  const storage = await startPutReceiver();
  const runner = await startRunner(await freePort(), { RUNNER_CONCURRENCY: String(availableParallelism()) });
  const api = runnerApi(runner);
  try {
    const bareArgv = (i: number) => op.args.map((a) => (a === "{{in}}" ? join(dir, op.input) : a === "{{out}}" ? `/tmp/ffjobs-dp-${i}-${op.output}` : a));
    const commands = Array.from({ length: jobs }, (_, i) => [op.binary, ...(op.binary === "ffmpeg" ? ["-y", "-v", "error"] : []), ...bareArgv(i)].map((a) => `'${a}'`).join(" "));
    const t0 = performance.now();
    execFileSync("xargs", ["-P2", "-I{}", "sh", "-c", "{}"], { input: commands.join("\n"), stdio: ["pipe", "ignore", "inherit"] });
    const bareMs = performance.now() - t0;
    const requests = Array.from({ length: jobs }, () => jobRequest({
      binary: op.binary, args: op.args, timeoutMs: 120_000,
      inputs: [{ name: "in", url: `${media.url}/${op.input}`, fileName: op.input, trusted: false }],
      outputs: op.output ? [{ name: "out", fileName: op.output, contentType: "application/octet-stream", uploadUrl: `${storage.url}/${crypto.randomUUID()}` }] : [],
    }));
    const t1 = performance.now();
    // All handed over at once, as coordinators would; the runner queues beyond its concurrency.
    for (const req of requests) await api.submit(req);
    for (const req of requests) {
      const done = await api.waitFor(req.jobId, (s) => s.state === "finished", 600_000);
      if (done.outcome?.status !== "completed") throw new Error(`${op.name}: ${JSON.stringify(done.outcome).slice(0, 300)}`);
    }
    return { bareMs, runnerMs: performance.now() - t1 };
  } finally {
    runner.stop();
    await media.close();
    await storage.close();
  }
}
