import type { JobSpec } from "../request/job-request.ts";
import { INITIAL_STATUS } from "./job-states.ts";

/** A new job, queued: its coordinator takes it from here. */
export async function insertJob(
  db: D1Database,
  job: { id: string; accountId: string; spec: JobSpec; now: string },
): Promise<void> {
  await db
    .prepare(
      `INSERT INTO jobs (id, account_id, binary, mode, status, request_json, webhook_url, created_at, updated_at, metadata_json)
       VALUES (?1, ?2, ?3, ?7, '${INITIAL_STATUS}', ?4, ?5, ?6, ?6, ?8)`,
    )
    .bind(
      job.id,
      job.accountId,
      job.spec.binary,
      JSON.stringify(job.spec),
      job.spec.webhookUrl,
      job.now,
      job.spec.mode ?? "raw",
      job.spec.metadata ? JSON.stringify(job.spec.metadata) : null,
    )
    .run();
}
