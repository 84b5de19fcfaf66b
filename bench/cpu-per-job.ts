// npm run bench:cpu: where the CPU goes when small jobs arrive in a burst. 40 ffprobe jobs from 4
// clients through `npm run dev`'s stack, with the CPU time each process used (from /proc), against
// `xargs -P2` of the same commands. Writes its table to docs/benchmarks.md. Linux only.
import { execFileSync } from "node:child_process";
import { availableParallelism } from "node:os";
import { readdirSync, readFileSync } from "node:fs";
import { startDevStack } from "../test/support/dev-stack.ts";
import { startStaticServer } from "../test/support/static-server.ts";
import { writeBenchmarkSection } from "./benchmarks-doc.ts";
import { benchFixtures } from "./fixtures.ts";

const JOBS = 40;
const CLIENTS = 4;
const TICK_MS = 1000 / Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());

type Usage = Map<string, number>;

/** CPU ms per process (its own, and its reaped children's apart), keyed by pid and a short role. */
function cpuByProcess(): Usage {
  const usage: Usage = new Map();
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const f = stat
        .slice(stat.lastIndexOf(")") + 2)
        .split(" ")
        .map(Number);
      const role = roleOf(
        readFileSync(`/proc/${pid}/cmdline`, "utf8"),
        stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")),
        Number(pid),
      );
      usage.set(`${pid} ${role}`, (f[11] + f[12]) * TICK_MS);
      if (role === "runner (node)") usage.set(`${pid} sandboxed ffprobe (bwrap, prlimit)`, (f[13] + f[14]) * TICK_MS);
    } catch {
      // the process ended between listing and reading
    }
  }
  return usage;
}

function roleOf(cmdline: string, comm: string, pid: number): string {
  if (pid === process.pid) return "bench client and media server";
  if (cmdline.includes("container/src/main.ts")) return "runner (node)";
  if (comm === "workerd") return "workerd (Worker, D1, queues, Durable Objects)";
  if (cmdline.includes("wrangler") || cmdline.includes("scripts/dev.ts")) return "wrangler and the dev launcher";
  if (comm.startsWith("kworker") || comm.startsWith("ksoftirqd")) return "kernel workers";
  return "other";
}

/** CPU of this process's finished children (xargs and its ffprobes). */
function reapedChildrenCpuMs(): number {
  const f = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ").map(Number);
  return (f[13] + f[14]) * TICK_MS;
}

function difference(before: Usage, after: Usage): Map<string, number> {
  const byRole = new Map<string, number>();
  for (const [key, ms] of after) {
    const role = key.slice(key.indexOf(" ") + 1);
    byRole.set(role, (byRole.get(role) ?? 0) + ms - (before.get(key) ?? 0));
  }
  return byRole;
}

const fx = benchFixtures(true);
const args = ["-v", "error", "-print_format", "json", "-show_format", "-show_streams"];
const media = await startStaticServer(fx.dir);
const stack = await startDevStack({ ALLOWED_PRIVATE_HOSTS: "127.0.0.1" });
const job = async () => {
  const res = await fetch(`${stack.baseUrl}/v1/jobs`, {
    method: "POST",
    headers: { Authorization: `Bearer ${stack.apiKey}`, "Content-Type": "application/json", Prefer: "wait=60" },
    body: JSON.stringify({
      binary: "ffprobe",
      inputs: { in: { type: "url", url: `${media.url}/clip720.mp4` } },
      ffmpegArgs: [...args, "{{in}}"],
    }),
  });
  if (((await res.json()) as { status: string }).status !== "completed")
    throw new Error("a bench job did not complete");
};
let rows: string[];
let wall: { bare: number; service: number };
try {
  for (let i = 0; i < 5; i++) await job(); // warm-up
  const childrenBefore = reapedChildrenCpuMs();
  const bareStart = performance.now();
  const commands = Array.from({ length: JOBS }, () => ["ffprobe", ...args, `${fx.dir}/clip720.mp4`].join(" ")).join(
    "\n",
  );
  execFileSync("xargs", ["-P2", "-I{}", "sh", "-c", "{} > /dev/null"], { input: commands });
  wall = { bare: performance.now() - bareStart, service: 0 };
  const bareCpuMs = reapedChildrenCpuMs() - childrenBefore;
  const before = cpuByProcess();
  const start = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < JOBS) {
        next++;
        await job();
      }
    }),
  );
  wall.service = performance.now() - start;
  const used = [...difference(before, cpuByProcess())].filter(([, ms]) => ms >= JOBS).sort((a, b) => b[1] - a[1]);
  const total = used.reduce((n, [, ms]) => n + ms, 0);
  rows = [
    ...used.map(([role, ms]) => `| ${role} | ${Math.round(ms)} | ${Math.round(ms / JOBS)} |`),
    `| **all of the service's run** | **${Math.round(total)}** | **${Math.round(total / JOBS)}** |`,
    `| bare: \`xargs -P2\` of the same ffprobe commands | ${Math.round(bareCpuMs)} | ${Math.round(bareCpuMs / JOBS)} |`,
  ];
} finally {
  await stack.stop();
  await media.close();
}
const cores = availableParallelism();
const report = `## CPU per job in a burst (\`node bench/cpu-per-job.ts\`)

${JOBS} ffprobe jobs (a 10 s 720p clip from a loopback URL) from ${CLIENTS} clients with \`Prefer: wait\`, through \`npm run dev\`'s
stack, and the CPU time each process used meanwhile (/proc, ms), against \`xargs -P2\` of the same commands.
Wall time: service ${Math.round(wall!.service)} ms, bare ${Math.round(wall!.bare)} ms (${(wall!.bare / wall!.service).toFixed(2)}× of bare throughput).

| process | CPU ms | per job |
|---|---|---|
${rows!.join("\n")}

With ${cores} cores, throughput at 0.8× of bare leaves each job about ${Math.round((cores * wall!.bare) / 0.8 / JOBS)} ms of CPU in all.
Measured ${new Date().toISOString().slice(0, 10)} on ${process.platform}/${process.arch}, Node ${process.version}.`;
writeBenchmarkSection("cpu", report);
console.log(report);
