import type { JobRow } from "../../jobs/job-store.ts";
import { isTerminal } from "../../jobs/job-states.ts";
import type { TickNews } from "../../jobs/tick-news.ts";

/** A comment line keeps idle connections open through proxies. */
const KEEPALIVE_MS = 15_000;
/**
 * With no news from the coordinator (a job waiting in line, an attempt lost and requeued), the job
 * is read again at most this often: a stream holds one Worker invocation, which may make at most
 * 1,000 D1 queries, so an hour costs at most 240 such reads.
 */
export const QUIET_READ_INTERVAL_MS = 15_000;

export type EventDeps = {
  read: () => Promise<JobRow>;
  /** The job as the client sees it (the full form). */
  view: (job: JobRow) => Promise<unknown>;
  /** Resolves when the job's coordinator next looks at the job (with what it learned), or after `ms`; may reject. */
  tick: (ms: number) => Promise<TickNews>;
  now?: () => number;
};

/** An event's id: the job's state at that moment, so a client that reconnects gets only what is new. */
export const eventIdOf = (job: JobRow) => `${job.status}.${Date.parse(job.updated_at)}`;

/**
 * Server-Sent Events for one job: the job now (unless `Last-Event-ID` says the client has it),
 * then an event whenever it changes — `progress` while running, `status` when its status changes —
 * each carrying the full job, and after the terminal `status` event the stream ends. Fed by the
 * coordinator's push: a running job's progress comes from it, not from D1, which is read only at
 * the start, when the job ended, when progress arrives for a job not yet seen running, and when
 * nothing else was heard for QUIET_READ_INTERVAL_MS.
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
      let lastId = lastEventId;
      let lastStatus = lastEventId?.split(".")[0] ?? null;
      let progressAt = Date.parse(job.updated_at);
      while (!closed) {
        const id = eventIdOf(job);
        if (id !== lastId) {
          const event = job.status !== lastStatus ? "status" : "progress";
          send(`id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(await deps.view(job))}\n\n`);
          lastId = id;
          lastStatus = job.status;
        }
        if (isTerminal(job.status)) break;
        const news = await deps.tick(KEEPALIVE_MS).catch(() => new Promise<TickNews>((r) => setTimeout(() => r({ woken: false, ended: false, progress: null }), 500)));
        if (!news.woken) send(": keepalive\n\n");
        const fresh = news.progress && Date.parse(news.progress.at) > progressAt ? news.progress : null;
        if (fresh && job.status === "running" && !news.ended) {
          job = { ...job, progress_json: JSON.stringify(fresh.progress), updated_at: fresh.at };
          progressAt = Date.parse(fresh.at);
        } else if (news.ended || fresh || now() - readAt >= QUIET_READ_INTERVAL_MS) {
          job = await deps.read();
          readAt = now();
          progressAt = Math.max(progressAt, Date.parse(job.updated_at));
        }
      }
      if (!closed) controller.close();
    },
    cancel() {
      closed = true;
    },
  });
}
