// Start latency on an idle local stack: createdAt → startedAt (queue hand-off, coordinator, runner
// accepted) and createdAt → finishedAt for a small ffprobe job. Writes docs/benchmarks.md.
// Run: node bench/start-latency.ts [--jobs N] (npm run bench runs the paired comparison, bench/paired.ts)
import { parseArgs } from "node:util";
import { percentile as pct, writeBenchmarkSection } from "./benchmarks-doc.ts";
import { startDevStack } from "../test/support/dev-stack.ts";
import { mediaFixtures } from "../test/support/media-fixtures.ts";
import { startStaticServer } from "../test/support/static-server.ts";

const { values } = parseArgs({ options: { jobs: { type: "string", default: "30" } } });
const jobs = Number(values.jobs);

const fx = mediaFixtures();
const media = await startStaticServer(fx.dir);
const stack = await startDevStack({ ALLOWED_PRIVATE_HOSTS: "127.0.0.1" });
const headers = { Authorization: `Bearer ${stack.apiKey}`, "Content-Type": "application/json" };

const starts: number[] = [];
const totals: number[] = [];
try {
  for (let i = 0; i < jobs; i++) {
    const res = await fetch(`${stack.baseUrl}/v1/jobs`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        binary: "ffprobe",
        input: [{ type: "url", url: `${media.url}/clip.mp4` }],
        ffmpegArgs: ["-v", "error", "-show_format", "{{input0}}"],
      }),
    });
    const { id } = (await res.json()) as { id: string };
    for (;;) {
      const job = (await (await fetch(`${stack.baseUrl}/v1/jobs/${id}`, { headers })).json()) as Record<string, string>;
      if (job.finishedAt) {
        starts.push(Date.parse(job.startedAt) - Date.parse(job.createdAt));
        totals.push(Date.parse(job.finishedAt) - Date.parse(job.createdAt));
        break;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  }
} finally {
  await stack.stop();
  await media.close();
}

const row = (name: string, xs: number[]) => `| ${name} | ${pct(xs, 50)} | ${pct(xs, 95)} | ${Math.max(...xs)} |`;
const report = `## Job start latency (idle local stack)

\`node bench/start-latency.ts\`: ${jobs} ffprobe jobs one after another on \`npm run dev\`'s stack
(wrangler dev + local runner + host ffmpeg), a 3 s 320x240 MP4 served from loopback. Times in ms from
the job's \`createdAt\` (server clock). Target: a job starts within 1 s of creation on an idle system.

| measure | p50 | p95 | max |
|---|---|---|---|
${row("createdAt → startedAt (queued → running)", starts)}
${row("createdAt → finishedAt (incl. fetch, ffprobe, the runner's notification)", totals)}

Measured ${new Date().toISOString().slice(0, 10)} on ${process.platform}/${process.arch}, Node ${process.version}.
A job goes straight to its coordinator at creation (and through the queue as the durable path); the runner
notifies the coordinator when the job starts and ends, so neither waits for a poll.
`;
writeBenchmarkSection("start-latency", report);
console.log(report);
