import type { Services } from "../services.ts";
import { getJob } from "../jobs/store/job-store.ts";
import { jobView } from "../jobs/views/job-view.ts";
import { listOutputs } from "../jobs/store/output-store.ts";
import type { DeliveryRow } from "./delivery-store.ts";
import { eventBody } from "./webhook-event.ts";
import { STORED_VIEW_MAX_BYTES } from "../jobs/store/row-budget.ts";
import { utf8Bytes } from "../jobs/store/stored-bytes.ts";

/** Download URLs inside a webhook outlive the retry schedule (~21 h); GET the job for fresh ones. */
export const WEBHOOK_DOWNLOAD_URL_TTL_SECONDS = 24 * 3600;

/**
 * The outbox row for a job's end event, written in the same D1 batch as the terminal transition, so
 * the event exists exactly when the job ended (and only once: a job has one end). `finished_at = now`
 * matches only the batch whose update moved the job. The body is built on first send.
 */
export function jobEndOutboxStatement(
  db: D1Database,
  jobId: string,
  ids: { deliveryId: string; eventId: string },
  now: string,
): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO webhook_deliveries (id, account_id, job_id, event_id, event_type, url, payload, status, created_at, updated_at)
       SELECT ?1, account_id, id, ?2, 'job.' || status, webhook_url, '', 'pending', ?3, ?3 FROM jobs
       WHERE id = ?4 AND webhook_url IS NOT NULL AND finished_at = ?3
         AND NOT EXISTS (SELECT 1 FROM webhook_deliveries WHERE job_id = ?4 AND event_type LIKE 'job.%')`,
    )
    .bind(ids.deliveryId, ids.eventId, now, jobId);
}

export function newEventId(): string {
  return `evt_${crypto.randomUUID().replace(/-/g, "")}`;
}

/**
 * The body of a job event: `data` is the job's full form as it ended. Built once, on first send, and
 * stored, so every retry and redelivery sends the same bytes under the same webhook-id.
 */
export async function ensurePayload(s: Services, delivery: DeliveryRow): Promise<string> {
  if (delivery.payload) return delivery.payload;
  const job = await getJob(s.db, delivery.job_id!);
  if (!job) throw new Error(`job ${delivery.job_id} of delivery ${delivery.id} is gone`);
  const data = await jobView(
    job,
    await listOutputs(s.db, [job.id]),
    { presigner: s.presigner, storage: s.config.storage, origin: null, jobTimeoutMs: s.config.jobTimeoutMs },
    WEBHOOK_DOWNLOAD_URL_TTL_SECONDS,
  );
  const at = new Date(job.finished_at ?? delivery.created_at);
  // Stored in its delivery's row, which D1 keeps to 2,000,000 bytes: a body that would be larger
  // leaves out what GET /v1/jobs/{id} still has (docs/webhooks.md, "Events").
  let payload = eventBody(delivery.event_type, data, at);
  for (const smaller of [withoutFileLists, withoutSummaries]) {
    if (utf8Bytes(payload) <= STORED_VIEW_MAX_BYTES) break;
    payload = eventBody(delivery.event_type, smaller(data), at);
  }
  await s.db
    .prepare("UPDATE webhook_deliveries SET payload = ?2 WHERE id = ?1 AND payload = ''")
    .bind(delivery.id, payload)
    .run();
  const stored = await s.db
    .prepare("SELECT payload FROM webhook_deliveries WHERE id = ?1")
    .bind(delivery.id)
    .first<{ payload: string }>();
  return stored!.payload;
}

type JobData = Awaited<ReturnType<typeof jobView>>;

/** The job without its directory outputs' file lists (each file's download URL; up to thousands). */
function withoutFileLists(data: JobData): JobData {
  const outputs = data.outputs.map(({ files: _files, ...o }) => o);
  const deliveredOutputs = data.deliveredOutputs.map(({ files: _files, ...d }) => d);
  return { ...data, outputs, deliveredOutputs };
}

/** The job without those lists and without its outputs' ffprobe summaries. */
function withoutSummaries(data: JobData): JobData {
  const lean = withoutFileLists(data);
  return {
    ...lean,
    outputs: lean.outputs.map((o) => ({ ...o, metadata: null })),
    deliveredOutputs: lean.deliveredOutputs.map((d) => ({ ...d, metadata: null })),
  };
}
