import type { JobSpec } from "../request/job-request.ts";
import type { JobRow } from "../store/job-row.ts";
import { INITIAL_STATUS } from "./job-states.ts";

/**
 * A new job, queued: its coordinator takes it from here. Returns the row as stored (with the table's
 * defaults), so the coordinator starts from it without reading it back.
 */
export async function insertJob(
  db: D1Database,
  job: { id: string; accountId: string; spec: JobSpec; now: string },
): Promise<JobRow> {
  const row = await db
    .prepare(
      `INSERT INTO jobs (id, account_id, binary, mode, status, request_json, webhook_url, created_at, updated_at, metadata_json)
       VALUES (?1, ?2, ?3, ?7, '${INITIAL_STATUS}', ?4, ?5, ?6, ?6, ?8) RETURNING *`,
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
    .first<JobRow>();
  if (!row) throw new Error(`job ${job.id}: the insert returned no row`);
  return row;
}
