import type { Services } from "../services.ts";
import { getJob } from "../jobs/job-store.ts";
import { jobView } from "../jobs/job-view.ts";
import { listOutputs } from "../jobs/output-store.ts";
import { isTerminal } from "../jobs/job-states.ts";
import { insertDelivery } from "./delivery-store.ts";
import { eventBody, JOB_EVENT_TYPES } from "./webhook-event.ts";

/** Download URLs inside a webhook outlive the retry schedule (~21 h); GET the job for fresh ones. */
export const WEBHOOK_DOWNLOAD_URL_TTL_SECONDS = 24 * 3600;

export type DeliveryMessage = { deliveryId: string };

/**
 * Queues the job's end event when the job has a webhookUrl. Called once per terminal transition
 * (only the update that actually moved the job gets here). The event and its body are fixed now;
 * retries resend the same bytes under the same webhook-id.
 */
export async function announceJobEnd(s: Services, jobId: string): Promise<void> {
  const job = await getJob(s.db, jobId);
  const type = job && isTerminal(job.status) ? JOB_EVENT_TYPES[job.status as keyof typeof JOB_EVENT_TYPES] : undefined;
  if (!job || !job.webhook_url || !type) return;
  const now = s.now();
  const data = await jobView(job, await listOutputs(s.db, [job.id]), s.presigner, WEBHOOK_DOWNLOAD_URL_TTL_SECONDS);
  const deliveryId = crypto.randomUUID();
  await insertDelivery(s.db, {
    id: deliveryId,
    accountId: job.account_id,
    jobId: job.id,
    eventId: `evt_${crypto.randomUUID().replace(/-/g, "")}`,
    eventType: type,
    url: job.webhook_url,
    payload: eventBody(type, data, now),
    now: now.toISOString(),
  });
  await s.webhooksQueue.send({ deliveryId });
}
