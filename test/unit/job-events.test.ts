import { describe, expect, it } from "vitest";
import { eventIdOf, jobEventStream, QUIET_READ_INTERVAL_MS } from "../../src/api/routes/job-events.ts";
import type { JobSnapshot, TickNews } from "../../src/jobs/lifecycle/tick-news.ts";
import type { JobRow } from "../../src/jobs/store/job-row.ts";

/**
 * The event stream's decisions, with a fake coordinator answering at once on a fake clock: a stream
 * holds one Worker invocation, which may make at most 1,000 D1 queries, so it must read the job
 * only at its start, at status changes and at the end, never once per progress report.
 * (test/worker/job-event-stream-hour.test.ts runs the same through the real route and coordinator.)
 */
const HOUR_S = 3600;
const T0 = Date.parse("2026-11-24T00:00:00Z");
const iso = (ms: number) => new Date(ms).toISOString();

function row(status: JobRow["status"], atMs: number, progress: unknown = null): JobRow {
  return {
    id: "j",
    status,
    updated_at: iso(atMs),
    progress_json: progress === null ? null : JSON.stringify(progress),
  } as JobRow;
}

type Event = { id: string; event: string; data: { status: string; progress: unknown } };
async function drain(stream: ReadableStream<Uint8Array>): Promise<Event[]> {
  const text = await new Response(stream).text();
  return text
    .split("\n\n")
    .filter((b) => b.startsWith("id:"))
    .map((b) => ({
      id: /id: (\S+)/.exec(b)![1],
      event: /event: (\w+)/.exec(b)![1],
      data: JSON.parse(/data: (.*)/.exec(b)![1]),
    }));
}

/** A job whose state the test scripts tick by tick; counts the stream's D1 reads. */
function scripted(
  script: (tick: number, clock: number) => { stored: JobRow; news: TickNews },
  lastEventId: string | null = null,
) {
  let clock = T0;
  let tick = 0;
  let reads = 0;
  const stream = jobEventStream(
    {
      now: () => clock,
      read: async () => {
        reads++;
        return script(tick, clock).stored;
      },
      view: async (job) => ({ status: job.status, progress: job.progress_json ? JSON.parse(job.progress_json) : null }),
      tick: async () => {
        tick++;
        clock += 1000;
        return script(tick, clock).news;
      },
    },
    lastEventId,
  );
  return { events: drain(stream), reads: () => reads };
}

const running = (second: number, clock: number): JobSnapshot => ({
  status: "running",
  progress: { progress: { second }, at: iso(clock) },
});

describe("the job event stream", () => {
  it("over a compressed hour: every second's progress and the end, reading the job from D1 three times", async () => {
    // Tick 1 the runner gives the job its slot; ticks 1..3600 report progress; tick 3601 ends it.
    const { events, reads } = scripted((tick, clock) => {
      if (tick === 0) return { stored: row("queued", T0), news: { woken: true, ended: false, snapshot: null } };
      if (tick <= HOUR_S)
        return {
          stored: row("running", T0 + 1000),
          news: { woken: true, ended: false, snapshot: running(tick, clock) },
        };
      return {
        stored: row("completed", clock),
        news: { woken: true, ended: true, snapshot: running(HOUR_S, clock - 1000) },
      };
    });
    const all = await events;
    expect(all.map((e) => e.event).filter((e) => e === "status")).toEqual(["status", "status", "status"]);
    expect(
      all.filter((e) => e.data.status === "running").map((e) => (e.data.progress as { second: number }).second),
    ).toEqual(Array.from({ length: HOUR_S }, (_, i) => i + 1));
    expect(all.at(-1)).toMatchObject({ event: "status", data: { status: "completed" } });
    // The start, the status change to running the coordinator reported, the end.
    expect(reads()).toBe(3);
  });

  it("a job in line for an hour is read at its start and its end only while its coordinator reports it queued", async () => {
    const { events, reads } = scripted((tick, clock) =>
      tick < HOUR_S
        ? {
            stored: row("queued", T0),
            news: { woken: true, ended: false, snapshot: { status: "queued", progress: null } },
          }
        : {
            stored: row("canceled", clock),
            news: { woken: true, ended: true, snapshot: { status: "queued", progress: null } },
          },
    );
    expect((await events).map((e) => e.data.status)).toEqual(["queued", "canceled"]);
    expect(reads()).toBe(2);
  });

  it("with a coordinator that knows nothing (restarted, unreachable), D1 is read at most every QUIET_READ_INTERVAL_MS", async () => {
    const { events, reads } = scripted((tick, clock) =>
      tick < HOUR_S
        ? { stored: row("queued", T0), news: { woken: false, ended: false, snapshot: null } }
        : { stored: row("completed", clock), news: { woken: false, ended: false, snapshot: null } },
    );
    expect((await events).map((e) => e.data.status)).toEqual(["queued", "completed"]);
    expect(reads()).toBeLessThanOrEqual(1 + (HOUR_S * 1000) / QUIET_READ_INTERVAL_MS + 1);
    expect(reads()).toBeGreaterThan(100);
  });

  it("a lost attempt (running, back in line, running again) is seen through the coordinator's status, one read per change", async () => {
    const phases: JobRow["status"][] = [
      "queued",
      "running",
      "running",
      "queued",
      "queued",
      "running",
      "running",
      "completed",
    ];
    const { events, reads } = scripted((tick, clock) => {
      const status = phases[Math.min(tick, phases.length - 1)];
      const snapshot: JobSnapshot =
        status === "running"
          ? running(tick, clock)
          : { status: status === "completed" ? "running" : status, progress: null };
      return { stored: row(status, T0 + tick * 1000), news: { woken: true, ended: status === "completed", snapshot } };
    });
    expect((await events).filter((e) => e.event === "status").map((e) => e.data.status)).toEqual([
      "queued",
      "running",
      "queued",
      "running",
      "completed",
    ]);
    // Start, running, queued, running, end.
    expect(reads()).toBe(5);
  });

  it("a client reconnecting with the Last-Event-ID of the job as it is gets only what is new", async () => {
    const stored = row("running", T0, { second: 0 });
    const { events } = scripted(
      (tick, clock) =>
        tick < 3
          ? { stored, news: { woken: true, ended: false, snapshot: running(tick, clock) } }
          : { stored: row("completed", clock), news: { woken: true, ended: true, snapshot: null } },
      eventIdOf(stored),
    );
    const all = await events;
    expect(all.map((e) => [e.event, e.data.status])).toEqual([
      ["progress", "running"],
      ["progress", "running"],
      ["status", "completed"],
    ]);
    expect(all[0].data.progress).toEqual({ second: 1 });
  });
});
