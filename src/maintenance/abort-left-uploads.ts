import type { JobSpec } from "../jobs/request/job-request.ts";
import { TERMINAL_STATUSES } from "../jobs/transitions/job-states.ts";
import { objectKeys } from "../storage/presigner.ts";

/** Uploads looked at per scheduled run: bounded work (an R2 call each); the rest wait for the next run. */
export const LEFT_UPLOADS_BATCH = 50;

type LeftUpload = { rowid: number; job_id: string; output: string; upload_id: string; request_json: string };

/**
 * The uploads of outputs stored while they were written (src/storage/output-parts.ts) whose attempt is
 * over: the job ended, or a later attempt took it. A runner completes or aborts its own; one that
 * crashed (or lost its container) leaves its parts in storage, billed until R2's lifecycle rule drops
 * them. Each is aborted here (a completed one is refused, harmlessly: its object stays) and its row
 * dropped. Answers how many were looked at.
 */
export async function abortLeftUploads(db: D1Database, bucket: R2Bucket): Promise<number> {
  const terminal = TERMINAL_STATUSES.map((s) => `'${s}'`).join(", ");
  const { results } = await db
    .prepare(
      `SELECT u.rowid, u.job_id, u.output, u.upload_id, jobs.request_json FROM output_uploads u
       JOIN jobs ON jobs.id = u.job_id WHERE jobs.status IN (${terminal}) OR jobs.attempts <> u.attempt LIMIT ?1`,
    )
    .bind(LEFT_UPLOADS_BATCH)
    .all<LeftUpload>();
  for (const u of results) {
    const { outputs } = JSON.parse(u.request_json) as JobSpec;
    const declared = Object.hasOwn(outputs, u.output) ? outputs[u.output] : undefined;
    if (!declared) continue;
    const key = objectKeys.output(u.job_id, u.output, declared.fileName);
    await bucket
      .resumeMultipartUpload(key, u.upload_id)
      .abort()
      .catch(() => {});
  }
  if (results.length)
    await db
      .prepare(`DELETE FROM output_uploads WHERE rowid IN (${results.map((_, i) => `?${i + 1}`).join(", ")})`)
      .bind(...results.map((u) => u.rowid))
      .run();
  return results.length;
}
