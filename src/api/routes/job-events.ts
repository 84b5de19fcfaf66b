import type { JobRow } from "../../jobs/job-store.ts";
import { isTerminal } from "../../jobs/job-states.ts";

/** A comment line keeps idle connections open through proxies. */
const KEEPALIVE_MS = 15_000;

export type EventDeps = {
  read: () => Promise<JobRow>;
  /** The job as the client sees it (the full form). */
  view: (job: JobRow) => Promise<unknown>;
  /** Resolves when the job's coordinator next looks at the job (or after `ms`); may reject. */
  tick: (ms: number) => Promise<unknown>;
};

/** An event's id: the job's state at that moment, so a client that reconnects gets only what is new. */
export const eventIdOf = (job: JobRow) => `${job.status}.${Date.parse(job.updated_at)}`;

/**
 * Server-Sent Events for one job: the job now (unless `Last-Event-ID` says the client has it),
 * then an event whenever it changes — `progress` while running, `status` when its status changes —
 * each carrying the full job, and after the terminal `status` event the stream ends.
 */
export function jobEventStream(deps: EventDeps, lastEventId: string | null): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let closed = false;
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (text: string) => !closed && controller.enqueue(encoder.encode(text));
      let job = await deps.read();
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
        const woke = await deps.tick(KEEPALIVE_MS).catch(() => new Promise((r) => setTimeout(() => r(false), 500)));
        if (!woke) send(": keepalive\n\n");
        job = await deps.read();
      }
      if (!closed) controller.close();
    },
    cancel() {
      closed = true;
    },
  });
}
