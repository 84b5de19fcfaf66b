// npm run bench: each ffjobs job paired with a bare run of the identical argv on this machine, reading
// the same URL from the same loopback origin (a job's input is a URL; bare ffmpeg given the file on disk
// would skip the HTTP both must do), in alternating order, through `npm run dev`'s stack (wrangler dev + runner + host ffmpeg). A client
// creates the job with `Prefer: wait=60` and the clock stops when the finished job comes back.
// Writes the table to docs/benchmarks.md. Options: --rounds N (default 10), --quick (smaller).
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startDevStack } from "../test/support/dev-stack.ts";
import { startStaticServer } from "../test/support/static-server.ts";
import { median, writeBenchmarkSection } from "./benchmarks-doc.ts";
import { benchFixtures } from "./fixtures.ts";
import { dataPlaneThroughput } from "./data-plane.ts";

const { values } = parseArgs({
  options: { rounds: { type: "string", default: "10" }, quick: { type: "boolean", default: false } },
});
const rounds = Number(values.rounds);
const fx = benchFixtures(values.quick);
const media = await startStaticServer(fx.dir);
const stack = await startDevStack({ ALLOWED_PRIVATE_HOSTS: "127.0.0.1" });
const scratch = mkdtempSync(join(tmpdir(), "ffjobs-bench-"));

/** Each job's goal is its time over bare ffmpeg's on the same machine in the same run (median of the pairs' ratios). */
type Op = {
  name: string;
  binary: "ffmpeg" | "ffprobe";
  input: string;
  output?: string;
  args: string[];
  goalRatio: number;
};
/** The data plane driven directly against `xargs -P2`: at least this share of bare throughput... */
const THROUGHPUT_GOAL = 0.85;
/** ...spending at most this much CPU per job as bare ffmpeg does. */
const CPU_PER_JOB_GOAL = 1.15;
const ops: Op[] = [
  {
    name: "ffprobe JSON of a 10 s 720p clip",
    binary: "ffprobe",
    input: "clip720.mp4",
    args: ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", "{{in}}"],
    goalRatio: 1.5,
  },
  {
    name: "one 320 px JPEG thumbnail",
    binary: "ffmpeg",
    input: "clip720.mp4",
    output: "thumb.jpg",
    args: ["-ss", "1", "-i", "{{in}}", "-frames:v", "1", "-vf", "scale=320:-2", "{{out}}"],
    goalRatio: 1.5,
  },
  {
    name: "5 s → 640x360 transcode",
    binary: "ffmpeg",
    input: "clip5.mp4",
    output: "small.mp4",
    args: ["-i", "{{in}}", "-vf", "scale=640:360", "-c:v", "libx264", "-preset", "veryfast", "-c:a", "aac", "{{out}}"],
    goalRatio: 1.15,
  },
  {
    name: `${fx.longSeconds} s 1080p → 720p transcode`,
    binary: "ffmpeg",
    input: fx.longName,
    output: "720p.mp4",
    args: ["-i", "{{in}}", "-vf", "scale=-2:720", "-c:v", "libx264", "-preset", "veryfast", "-c:a", "aac", "{{out}}"],
    goalRatio: 1.03,
  },
];

function bareArgv(op: Op, outName: string): string[] {
  const argv = op.args.map((a) =>
    a === "{{in}}" ? `${media.url}/${op.input}` : a === "{{out}}" ? join(scratch, outName) : a,
  );
  return op.binary === "ffmpeg" ? ["-y", "-v", "error", ...argv] : argv;
}

function runBare(op: Op, outName = op.output ?? "out"): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(op.binary, bareArgv(op, outName), { stdio: "ignore" });
    child.on("exit", (code) =>
      code === 0 ? resolve(performance.now() - t0) : reject(new Error(`${op.binary} exited ${code}`)),
    );
  });
}

async function runJob(op: Op): Promise<{ ms: number; job: any }> {
  const body = {
    binary: op.binary,
    inputs: { in: { type: "url", url: `${media.url}/${op.input}` } },
    outputs: op.output ? { out: { fileName: op.output } } : {},
    ffmpegArgs: op.args,
  };
  const t0 = performance.now();
  const res = await fetch(`${stack.baseUrl}/v1/jobs`, {
    method: "POST",
    headers: { Authorization: `Bearer ${stack.apiKey}`, "Content-Type": "application/json", Prefer: "wait=60" },
    body: JSON.stringify(body),
  });
  const job = (await res.json()) as any;
  const ms = performance.now() - t0;
  if (res.status !== 200 || job.status !== "completed")
    throw new Error(`${op.name}: ${res.status} ${JSON.stringify(job).slice(0, 300)}`);
  return { ms, job };
}

type Row = { name: string; bare: number; job: number; ratio: number; goal: string; met: boolean; phases: string };
const rows: Row[] = [];
try {
  for (const op of ops) {
    // Every row its full rounds, the long one too: two pairs of a 60 s encode on this machine swing by 10 %.
    const n = rounds;
    const pairs: { bare: number; job: number; timings: any }[] = [];
    await runBare(op); // warm the page cache and the binary
    for (let i = 0; i < n; i++) {
      const bareFirst = i % 2 === 0;
      const bare = bareFirst ? await runBare(op) : 0;
      const { ms, job } = await runJob(op);
      pairs.push({ bare: bareFirst ? bare : await runBare(op), job: ms, timings: job.timings });
    }
    const ratio = median(pairs.map((p) => p.job / p.bare));
    const bare = median(pairs.map((p) => p.bare));
    const jobMs = median(pairs.map((p) => p.job));
    const met = ratio <= op.goalRatio;
    const phase = (k: string) => Math.round(median(pairs.map((p) => p.timings[k])));
    rows.push({
      name: op.name,
      bare,
      job: jobMs,
      ratio,
      met,
      goal: `≤ ${op.goalRatio}× (+${Math.round(jobMs - bare)} ms)`,
      phases: `${phase("queuedMs")} / ${phase("fetchMs")} / ${phase("runMs")} / ${phase("storeMs")} / ${phase("finishMs")}`,
    });
    console.error(`${op.name}: bare ${Math.round(bare)} ms, ffjobs ${Math.round(jobMs)} ms, ${ratio.toFixed(2)}×`);
  }
} finally {
  await stack.stop();
  await media.close();
}
// Apart from the stack: the control plane sharing two cores would price itself into the data plane's figure.
for (const op of [ops[0], ops[1]]) rows.push(await throughput(op, values.quick ? 12 : 40));
// A job with some work in it: the data plane's fixed cost per job, against a run of ~0.7 s of bare ffmpeg.
rows.push(await throughput(ops[2], values.quick ? 6 : 20));

/** `jobs` runs of the op by the data plane (the runner driven directly), against `xargs -P2` of the same commands. */
async function throughput(op: Op, jobs: number): Promise<Row> {
  const dp = await dataPlaneThroughput(fx.dir, op, jobs);
  const throughputRatio = dp.bareMs / dp.runnerMs;
  const cpuRatio = dp.runnerCpuMsPerJob / dp.bareCpuMsPerJob;
  console.error(`${jobs} × ${op.name}: xargs -P2 ${Math.round(dp.bareMs)} ms, runner ${Math.round(dp.runnerMs)} ms`);
  return {
    name: `${jobs} × ${op.name.replace(/ of a .*/, "")}: the runner driven directly (vs xargs -P2)`,
    bare: dp.bareMs,
    job: dp.runnerMs,
    ratio: dp.runnerMs / dp.bareMs,
    goal: `throughput ≥ ${THROUGHPUT_GOAL}× of bare (${throughputRatio.toFixed(2)}×), CPU per job ≤ ${CPU_PER_JOB_GOAL}× (${cpuRatio.toFixed(2)}×)`,
    met: throughputRatio >= THROUGHPUT_GOAL && cpuRatio <= CPU_PER_JOB_GOAL,
    phases: `CPU per job: bare ${Math.round(dp.bareCpuMsPerJob)} ms, data plane ${Math.round(dp.runnerCpuMsPerJob)} ms (+${Math.round(dp.runnerCpuMsPerJob - dp.bareCpuMsPerJob)}; the runner's own Node process ${Math.round(dp.runnerOwnCpuMsPerJob)})`,
  };
}

const table = rows
  .map(
    (r) =>
      `| ${r.name} | ${Math.round(r.bare)} | ${Math.round(r.job)} | ${r.ratio.toFixed(2)}× | ${r.goal} | ${r.met ? "met" : "**not met**"} | ${r.phases} |`,
  )
  .join("\n");
const report = `## Paired comparison against bare ffmpeg (\`npm run bench\`)

bench/paired.ts: every ffjobs job paired with a bare run of the identical argv on the same machine in the
same run, alternating which goes first; the median of the per-pair ratios. ffjobs time is a client's:
from \`POST /v1/jobs\` with \`Prefer: wait=60\` until the finished job comes back (URL input from loopback,
outputs stored); bare ffmpeg reads the same URL from the same origin. Phases are the jobs' own \`timings\` (median ms): queued / fetch / run / store / finish.
The throughput rows drive the runner directly as a coordinator does (bench/data-plane.ts), against \`xargs -P2\`
(reading the same URL; each job's end awaited with the held status call a coordinator makes), with the CPU each used
per job (/proc: the runner and its sandboxes, and the runner's Node process alone; xargs and its ffmpegs);
the control plane's CPU per job is \`npm run bench:cpu\`'s table.

| operation | bare ms | ffjobs ms | ratio | goal | | phases |
|---|---|---|---|---|---|---|
${table}

Measured ${new Date().toISOString().slice(0, 10)} on ${process.platform}/${process.arch} (${(await import("node:os")).availableParallelism()} cores), Node ${process.version}, ${execFileSync("ffmpeg", ["-version"], { encoding: "utf8" }).split("\n")[0]}; ${rounds} rounds.`;
writeBenchmarkSection("paired", report);
console.log(`\n${report}\n`);
