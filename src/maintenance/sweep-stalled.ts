import type { Services } from "../services.ts";
import { MAX_QUEUE_DELAY_SECONDS } from "../webhooks/retry-schedule.ts";

/** An event never attempted this long after it was written lost its message. */
export const STALE_UNSENT_DELIVERY_MS = 5 * 60_000;
/** A pending delivery silent for longer than the longest retry delay (+ jitter and slack) is stalled. */
export const STALE_RETRYING_DELIVERY_MS = (MAX_QUEUE_DELAY_SECONDS * 1.1 + 3600) * 1000;
const SWEEP_BATCH = 100;

/**
 * Every minute (cron; `npm run dev` calls it on the same schedule): puts back on their queues the
 * unfinished jobs nothing has touched for `stalledJobMs` (a lost queue message, or a coordinator
 * whose alarm was lost) and the webhook deliveries whose message was lost. Sending twice is
 * harmless: a coordinator already ticking its job ignores it, a delivery is sent only while
 * pending and under the same webhook-id.
 */
export async function sweepStalled(s: Services): Promise<{ jobs: number; deliveries: number }> {
  const now = s.now().getTime();
  const iso = (ms: number) => new Date(now - ms).toISOString();
  const jobs = await s.db
    .prepare(
      `SELECT id FROM jobs WHERE status IN ('queued', 'running') AND updated_at < ?1 ORDER BY updated_at LIMIT ${SWEEP_BATCH}`,
    )
    .bind(iso(s.config.stalledJobMs))
    .all<{ id: string }>();
  const deliveries = await s.db
    .prepare(
      `SELECT id FROM webhook_deliveries WHERE status = 'pending'
         AND ((attempt_count = 0 AND updated_at < ?1) OR updated_at < ?2)
       ORDER BY updated_at LIMIT ${SWEEP_BATCH}`,
    )
    .bind(iso(STALE_UNSENT_DELIVERY_MS), iso(STALE_RETRYING_DELIVERY_MS))
    .all<{ id: string }>();
  if (jobs.results.length) await s.jobsQueue.sendBatch(jobs.results.map((j) => ({ body: { jobId: j.id } })));
  if (deliveries.results.length)
    await s.webhooksQueue.sendBatch(deliveries.results.map((d) => ({ body: { deliveryId: d.id } })));
  if (jobs.results.length || deliveries.results.length) {
    console.warn(
      `sweeper re-sent ${jobs.results.length} stalled job(s) and ${deliveries.results.length} delivery(ies)`,
    );
  }
  return { jobs: jobs.results.length, deliveries: deliveries.results.length };
}
