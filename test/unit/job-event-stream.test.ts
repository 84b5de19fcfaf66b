import { describe, expect, it } from "vitest";
import { jobEventStream, QUIET_READ_INTERVAL_MS } from "../../src/api/routes/job-events.ts";
import type { TickNews } from "../../src/jobs/tick-news.ts";
import type { JobRow } from "../../src/jobs/job-store.ts";

/**
 * An event stream held open across a compressed hour: the coordinator (a fake here, answering at
 * once on a fake clock) reports progress every second of a one-hour run. A stream holds one Worker
 * invocation, which may make at most 1,000 D1 queries: its reads of the job must stay far below.
 */
const HOUR_S = 3600;
const T0 = Date.parse("2026-11-24T00:00:00Z");
const iso = (ms: number) => new Date(ms).toISOString();

function row(status: JobRow["status"], atMs: number, progress: unknown = null): JobRow {
  return { id: "j", status, updated_at: iso(atMs), progress_json: progress === null ? null : JSON.stringify(progress) } as JobRow;
}

async function drain(stream: ReadableStream<Uint8Array>): Promise<{ event: string; data: { status: string; progress: unknown } }[]> {
  const text = await new Response(stream).text();
  return text.split("\n\n").filter((b) => b.startsWith("id:")).map((b) => ({
    event: /event: (\w+)/.exec(b)![1],
    data: JSON.parse(/data: (.*)/.exec(b)![1]),
  }));
}

describe("the job event stream over a compressed hour", () => {
  it("sends every second's progress and the end, reading the job from D1 only a handful of times", async () => {
    let clock = T0;
    let second = 0;
    let reads = 0;
    const stored = () => (second === 0 ? row("queued", T0) : second <= HOUR_S ? row("running", clock, { second }) : row("completed", clock));
    const stream = jobEventStream(
      {
        now: () => clock,
        read: async () => {
          reads++;
          return stored();
        },
        view: async (job) => ({ status: job.status, progress: job.progress_json ? JSON.parse(job.progress_json) : null }),
        tick: async (): Promise<TickNews> => {
          second++;
          clock += 1000;
          if (second > HOUR_S) return { woken: true, ended: true, progress: { progress: { second: HOUR_S }, at: iso(clock - 1000) } };
          return { woken: true, ended: false, progress: { progress: { second }, at: iso(clock) } };
        },
      },
      null,
    );
    const events = await drain(stream);
    expect(events.filter((e) => e.event === "progress").length).toBe(HOUR_S - 1);
    expect(events.at(-1)).toMatchObject({ event: "status", data: { status: "completed" } });
    expect(events.find((e) => e.event === "progress")!.data.progress).toEqual({ second: 2 });
    // Start, the first progress of a job last seen queued, the end.
    expect(reads).toBeLessThanOrEqual(3);
  });

  it("a job waiting an hour in line is read again only every QUIET_READ_INTERVAL_MS, and its start is seen", async () => {
    let clock = T0;
    let reads = 0;
    let ticks = 0;
    const stream = jobEventStream(
      {
        now: () => clock,
        read: async () => {
          reads++;
          return ticks < HOUR_S ? row("queued", T0) : row("canceled", clock);
        },
        view: async (job) => ({ status: job.status, progress: null }),
        tick: async (): Promise<TickNews> => {
          ticks++;
          clock += 1000;
          return { woken: true, ended: false, progress: null };
        },
      },
      null,
    );
    const events = await drain(stream);
    expect(events.map((e) => e.data.status)).toEqual(["queued", "canceled"]);
    expect(reads).toBeLessThanOrEqual(1 + (HOUR_S * 1000) / QUIET_READ_INTERVAL_MS + 1);
    expect(reads).toBeLessThan(1000);
  });
});
