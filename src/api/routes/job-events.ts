import { isTerminal, type JobStatus } from "../../jobs/transitions/job-states.ts";
import type { TickNews } from "../../jobs/lifecycle/tick-news.ts";
import type { JobRow } from "../../jobs/store/job-row.ts";

/** A comment line keeps idle connections open through proxies. */
export const KEEPALIVE_MS = 15_000;
/** A coordinator that cannot be asked (restarting) is asked again after this long. */
const RETRY_TICK_MS = 500;
/**
 * When the coordinator has nothing to say about the job (a fresh instance that has not ticked yet, or
 * one that cannot be reached), D1 is read at most this often: a stream holds one Worker invocation,
 * which may make at most 1,000 D1 queries.
 */
export const QUIET_READ_INTERVAL_MS = 15_000;

export type EventDeps = {
  read: () => Promise<JobRow>;
  /** The job as the client sees it (the full form). */
  view: (job: JobRow) => Promise<unknown>;
  /** Resolves when the job's coordinator next looks at the job (with what it knows then), or after `ms`; may reject. */
  tick: (ms: number) => Promise<TickNews>;
  /** The stream is over (ended, or its client went away): let go of the coordinator. */
  close?: () => void;
  now?: () => number;
};

/** An event's id: the job's state at that moment, so a client that reconnects gets only what is new. */
export const eventIdOf = (job: JobRow) => `${job.status}.${Date.parse(job.updated_at)}`;

/**
 * Whether the stream must read the job from D1 after this news: when the job ended (the final full
 * view), when the coordinator reports a status it had not reported before (a bounded number: queued,
 * running, back to queued per lost attempt), and, only while the coordinator knows nothing, every
 * QUIET_READ_INTERVAL_MS. Progress never needs D1: it comes with the news.
 */
export function needsRead(news: TickNews, reported: JobStatus | null, msSinceRead: number): boolean {
  if (news.ended) return true;
  if (!news.snapshot) return msSinceRead >= QUIET_READ_INTERVAL_MS;
  return news.snapshot.status !== reported;
}

/** The job with the coordinator's progress, when it is newer than what the stream has. */
export function withPushedProgress(job: JobRow, news: TickNews): JobRow {
  const pushed = news.snapshot?.status === "running" ? news.snapshot.progress : null;
  // Same instant: the row was written by the tick that reported this progress (the start), which may have left it out.
  if (job.status !== "running" || !pushed || Date.parse(pushed.at) < Date.parse(job.updated_at)) return job;
  return { ...job, progress_json: JSON.stringify(pushed.progress), updated_at: pushed.at };
}

/**
 * Server-Sent Events for one job: the job now (unless `Last-Event-ID` says the client has it),
 * then an event whenever it changes — `progress` while running, `status` when its status changes —
 * each carrying the full job, and after the terminal `status` event the stream ends. Fed by the
 * coordinator's push (its snapshot of the job's status and progress at each tick): D1 is read only
 * as `needsRead` says, so an hour-long job costs a handful of reads, not one per second.
 */
export function jobEventStream(deps: EventDeps, lastEventId: string | null): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const now = deps.now ?? Date.now;
  let closed = false;
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (text: string) => !closed && controller.enqueue(encoder.encode(text));
      let job = await deps.read();
      let readAt = now();
      // The status the coordinator last reported that the stream acted on (null: nothing heard yet).
      let reported: JobStatus | null = job.status;
      let lastId = lastEventId;
      let lastStatus = lastEventId?.split(".")[0] ?? null;
      while (!closed) {
        const id = eventIdOf(job);
        if (id !== lastId) {
          const event = job.status !== lastStatus ? "status" : "progress";
          send(`id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(await deps.view(job))}\n\n`);
          lastId = id;
          lastStatus = job.status;
        }
        if (isTerminal(job.status)) break;
        const news = await deps
          .tick(KEEPALIVE_MS)
          .catch(
            () =>
              new Promise<TickNews>((r) =>
                setTimeout(() => r({ woken: false, ended: false, snapshot: null }), RETRY_TICK_MS),
              ),
          );
        if (!news.woken) send(": keepalive\n\n");
        if (needsRead(news, reported, now() - readAt)) {
          job = await deps.read();
          readAt = now();
        }
        if (news.snapshot) reported = news.snapshot.status;
        job = withPushedProgress(job, news);
      }
      deps.close?.();
      if (!closed) controller.close();
    },
    cancel() {
      closed = true;
      deps.close?.();
    },
  });
}
