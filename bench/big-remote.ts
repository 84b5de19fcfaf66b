// Inputs on a remote origin, as users' files are: a ≥ 500 MiB file (its index at the end, as cameras
// write it) and a 60 s 1080p clip, served from loopback with ranges at a capped 50 MiB/s and a 20 ms
// first byte (bench/throttled-origin.ts). Each ffjobs job (through `npm run dev`'s stack) is paired
// with bare ffmpeg reading the same URL in the same run; the origin's bytes are counted for both.
// Writes the "big-remote" section of docs/benchmarks.md. Options: --rounds N (default 10: medians of at
// least 10 rounds, as the goals are stated; a round of the transcode takes a minute), --quick (one round).
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, renameSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startDevStack } from "../test/support/dev-stack.ts";
import { median, writeBenchmarkSection } from "./benchmarks-doc.ts";
import { benchFixtures } from "./fixtures.ts";
import { startThrottledOrigin } from "./throttled-origin.ts";

const MiB = 1024 * 1024;
const ORIGIN_BYTES_PER_SECOND = 50 * MiB;
const FIRST_BYTE_MS = 20;
const { values } = parseArgs({
  options: { rounds: { type: "string", default: "10" }, quick: { type: "boolean", default: false } },
});
const rounds = values.quick ? 1 : Number(values.rounds);
const fx = benchFixtures(false);
const big = bigFile();
const bigSeconds = Number(
  execFileSync("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", join(fx.dir, big)], {
    encoding: "utf8",
  }),
);
const middle = String(Math.floor(bigSeconds / 2));
const origin = await startThrottledOrigin(fx.dir, {
  bytesPerSecond: ORIGIN_BYTES_PER_SECOND,
  firstByteMs: FIRST_BYTE_MS,
});
const stack = await startDevStack({ ALLOWED_PRIVATE_HOSTS: "127.0.0.1" });
const scratch = mkdtempSync(join(tmpdir(), "ffjobs-bench-remote-"));

/** The 60 s 1080p clip looped (stream copy) to at least 500 MiB, made once. */
function bigFile(): string {
  const name = "big-remote.mp4";
  const path = join(fx.dir, name);
  if (!existsSync(path)) {
    const loops = Math.ceil((500 * MiB) / statSync(join(fx.dir, fx.longName)).size);
    execFileSync("ffmpeg", [
      "-v",
      "error",
      "-y",
      "-stream_loop",
      String(loops - 1),
      "-i",
      join(fx.dir, fx.longName),
      "-c",
      "copy",
      `${path}.partial.mp4`,
    ]);
    renameSync(`${path}.partial.mp4`, path);
  }
  return name;
}

type Op = {
  name: string;
  binary: "ffmpeg" | "ffprobe";
  input: string;
  output?: string;
  args: string[];
  goal: { ratio: number; bytes?: number };
};
const ops: Op[] = [
  {
    name: `ffprobe JSON of a ${Math.round(statSync(join(fx.dir, big)).size / MiB)} MiB file`,
    binary: "ffprobe",
    input: big,
    args: ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", "{{in}}"],
    goal: { ratio: 1.5, bytes: 1.5 },
  },
  {
    name: `one JPEG at ${middle} s of it (-ss before -i)`,
    binary: "ffmpeg",
    input: big,
    output: "frame.jpg",
    args: ["-ss", middle, "-i", "{{in}}", "-frames:v", "1", "-q:v", "3", "{{out}}"],
    goal: { ratio: 1.5, bytes: 1.5 },
  },
  {
    name: `10 s stream copy from ${middle} s of it`,
    binary: "ffmpeg",
    input: big,
    output: "cut.mp4",
    args: ["-ss", middle, "-i", "{{in}}", "-t", "10", "-c", "copy", "{{out}}"],
    goal: { ratio: 1.5, bytes: 1.5 },
  },
  {
    // A larger output (≈ 60 MB): stored in parts while ffmpeg writes it (container/src/output-streams.ts).
    name: `60 s stream copy from ${middle} s of it`,
    binary: "ffmpeg",
    input: big,
    output: "cut60.mp4",
    args: ["-ss", middle, "-i", "{{in}}", "-t", "60", "-c", "copy", "{{out}}"],
    goal: { ratio: 1.5, bytes: 1.5 },
  },
  {
    name: `${fx.longSeconds} s 1080p → 720p transcode, reading as it arrives`,
    binary: "ffmpeg",
    input: fx.longName,
    output: "720p.mp4",
    args: ["-i", "{{in}}", "-vf", "scale=-2:720", "-c:v", "libx264", "-preset", "veryfast", "-c:a", "aac", "{{out}}"],
    goal: { ratio: 1.05 },
  },
];

async function measured<T>(run: () => Promise<T>): Promise<{ ms: number; bytes: number; value: T }> {
  const before = origin.sentBytes();
  const t0 = performance.now();
  const value = await run();
  return { ms: performance.now() - t0, bytes: origin.sentBytes() - before, value };
}

function runBare(op: Op): Promise<null> {
  const argv = op.args.map((a) =>
    a === "{{in}}" ? `${origin.url}/${op.input}` : a === "{{out}}" ? join(scratch, op.output!) : a,
  );
  return new Promise((resolve, reject) => {
    const child = spawn(op.binary, op.binary === "ffmpeg" ? ["-y", "-v", "error", ...argv] : argv, { stdio: "ignore" });
    child.on("exit", (code) => (code === 0 ? resolve(null) : reject(new Error(`${op.binary} exited ${code}`))));
  });
}

async function runJob(op: Op): Promise<any> {
  const headers = { Authorization: `Bearer ${stack.apiKey}`, "Content-Type": "application/json" };
  const body = {
    binary: op.binary,
    inputs: { in: { type: "url", url: `${origin.url}/${op.input}` } },
    outputs: op.output ? { out: { fileName: op.output } } : {},
    ffmpegArgs: op.args,
  };
  let job = (await (
    await fetch(`${stack.baseUrl}/v1/jobs`, {
      method: "POST",
      headers: { ...headers, Prefer: "wait=60" },
      body: JSON.stringify(body),
    })
  ).json()) as any;
  while (!["completed", "failed", "canceled", "rejected"].includes(job.status)) {
    job = await (await fetch(`${stack.baseUrl}/v1/jobs/${job.id}?wait=60`, { headers })).json();
  }
  if (job.status !== "completed") throw new Error(`${op.name}: ${JSON.stringify(job).slice(0, 400)}`);
  return job;
}

const rows: string[] = [];
try {
  for (const op of ops) {
    const pairs: { bare: { ms: number; bytes: number }; job: { ms: number; bytes: number; value: any } }[] = [];
    for (let i = 0; i < rounds; i++) {
      // Alternate which goes first; each alone on the link, so the origin's bytes are its own.
      const bareFirst = i % 2 === 0;
      const bare = bareFirst ? await measured(() => runBare(op)) : null;
      const job = await measured(() => runJob(op));
      pairs.push({ bare: bare ?? (await measured(() => runBare(op))), job });
    }
    const ratio = median(pairs.map((p) => p.job.ms / p.bare.ms));
    const bytesRatio = median(pairs.map((p) => p.job.bytes / p.bare.bytes));
    const met = ratio <= op.goal.ratio && (op.goal.bytes === undefined || bytesRatio <= op.goal.bytes);
    // Storing an output (upload and probe) is work bare ffmpeg writing to its own disk never does: shown apart.
    const withoutStore = median(pairs.map((p) => (p.job.ms - p.job.value.timings.storeMs) / p.bare.ms));
    const phase = (k: string) => Math.round(median(pairs.map((p) => p.job.value.timings[k])));
    const mib = (b: number) => (b / MiB).toFixed(1);
    rows.push(
      `| ${op.name} | ${Math.round(median(pairs.map((p) => p.bare.ms)))} | ${Math.round(median(pairs.map((p) => p.job.ms)))} | ${ratio.toFixed(2)}× | ${op.output ? `${withoutStore.toFixed(2)}×` : "—"} | ${mib(median(pairs.map((p) => p.bare.bytes)))} | ${mib(median(pairs.map((p) => p.job.bytes)))} | ${bytesRatio.toFixed(2)}× | ≤ ${op.goal.ratio}×${op.goal.bytes ? `, bytes ≤ ${op.goal.bytes}×` : ""} | ${met ? "met" : "**not met**"} | ${phase("queuedMs")} / ${phase("fetchMs")} / ${phase("runMs")} / ${phase("storeMs")} / ${phase("finishMs")} |`,
    );
    console.error(rows.at(-1));
  }
} finally {
  await stack.stop();
  await origin.close();
}

const report = `## Large inputs on a remote origin (\`npm run bench\`, bench/big-remote.ts)

Inputs served from loopback with ranges at a capped ${ORIGIN_BYTES_PER_SECOND / MiB} MiB/s (one link shared by all
connections) and a ${FIRST_BYTE_MS} ms first byte (bench/throttled-origin.ts); the large file has its index at the end. Each
ffjobs job (client time: \`POST /v1/jobs\` until the finished job comes back, through \`npm run dev\`'s stack) is
paired with bare ffmpeg reading the same URL, alternating which goes first; medians of the per-pair ratios.
"origin MiB" is what the origin put on the link for the run (for ffjobs, with the runner's own duration probe).
"without store" leaves out the store phase (the output's upload and probe, which bare ffmpeg writing to its own
disk does not do). Phases: queued / fetch / run / store / finish (ms).

| operation | bare ms | ffjobs ms | ratio | without store | bare origin MiB | ffjobs origin MiB | bytes ratio | goal | | phases |
|---|---|---|---|---|---|---|---|---|---|---|
${rows.join("\n")}

Measured ${new Date().toISOString().slice(0, 10)} on ${process.platform}/${process.arch} (${(await import("node:os")).availableParallelism()} cores), Node ${process.version}, ${execFileSync("ffmpeg", ["-version"], { encoding: "utf8" }).split("\n")[0]}; ${rounds} rounds.`;
writeBenchmarkSection("big-remote", report);
console.log(`\n${report}\n`);
