import type { JobSpec } from "../request/job-request.ts";
import { TERMINAL_STATUSES, type JobStatus } from "../transitions/job-states.ts";
import type { JobRow } from "./job-row.ts";
import { keysetPage, type Cursor } from "../../storage/keyset-page.ts";
import { JOB_SUMMARY_COLUMNS, JOB_SUMMARY_COMPUTED, type JobSummaryRow } from "../views/job-summary.ts";
import { JOB_COLUMN_MAX_BYTES } from "./row-budget.ts";
import { boundedJson, headBytes } from "./stored-bytes.ts";

/** A preset job's planned arguments, as its runner reported them (null before it ran, and for raw jobs). */
export function plannedArgsOf(row: Pick<JobRow, "planned_args_json">): string[] | null {
  return row.planned_args_json ? (JSON.parse(row.planned_args_json) as string[]) : null;
}

export function jobSpecOf(row: JobRow): JobSpec {
  return JSON.parse(row.request_json) as JobSpec;
}

/** A job by id; with an account id, another account's job is indistinguishable from a missing one. */
export async function getJob(db: D1Database, id: string, accountId?: string): Promise<JobRow | null> {
  return getJobStatement(db, id, accountId).first<JobRow>();
}

/** `getJob` as a statement, to join a batch. */
export function getJobStatement(db: D1Database, id: string, accountId?: string): D1PreparedStatement {
  const sql = accountId ? "SELECT * FROM jobs WHERE id = ?1 AND account_id = ?2" : "SELECT * FROM jobs WHERE id = ?1";
  return accountId ? db.prepare(sql).bind(id, accountId) : db.prepare(sql).bind(id);
}

/**
 * A running job's progress reaches D1 at most this often (it also keeps updated_at fresh for the
 * sweeper, whose STALLED_JOB_SECONDS is far longer); between, it lives in the coordinator, which
 * serves it to GET, event streams and waits. Each write bills the row and the index on updated_at.
 */
export const PROGRESS_SAVE_INTERVAL_MS = 10_000;

export async function saveProgress(db: D1Database, id: string, progress: unknown, now: string): Promise<void> {
  await db
    .prepare("UPDATE jobs SET progress_json = ?2, updated_at = ?3 WHERE id = ?1 AND status = 'running'")
    .bind(id, boundedJson(progress, JOB_COLUMN_MAX_BYTES.progress_json), now)
    .run();
}

/**
 * Newest first, keyset-paginated (src/storage/keyset-page.ts); `metadata` entries must all match. Rows
 * as a list shows them (src/jobs/views/job-summary.ts): bounded columns only, never the whole row.
 */
export function listJobs(
  db: D1Database,
  accountId: string,
  q: { limit: number; cursor?: Cursor; status?: JobStatus; metadata?: Record<string, string> },
) {
  const filters: [string, unknown][] = [["account_id", accountId]];
  if (q.status) filters.push(["status", q.status]);
  // Keys are [A-Za-z0-9_.:-] (checked by the caller), so the quoted JSON path cannot be escaped.
  const conditions = Object.entries(q.metadata ?? {}).map(([k, v]) => ({
    sql: "json_extract(metadata_json, ?) = ?",
    params: [`$."${k}"`, v],
  }));
  return keysetPage<JobSummaryRow>(db, {
    table: "jobs",
    columns: JOB_SUMMARY_COLUMNS,
    computed: JOB_SUMMARY_COMPUTED,
    filters,
    conditions,
    limit: q.limit,
    cursor: q.cursor,
  });
}

/**
 * The statements that delete a finished job's rows, the job's last so that nothing is left pointing at
 * it (job_tasks, job_outputs and output_uploads hold foreign keys to it): its split tasks, its outputs'
 * records and streamed uploads, then the job. Each is guarded by the job being finished, so a batch of them changes nothing otherwise.
 * `guard` is that condition with the job id at ?3, for statements joining the same batch.
 */
export function finishedJobDeletes(
  db: D1Database,
  jobId: string,
): { guard: { sql: string; params: unknown[] }; statements: D1PreparedStatement[] } {
  const terminal = TERMINAL_STATUSES.map((s) => `'${s}'`).join(", ");
  const finished = (at: number) => `EXISTS (SELECT 1 FROM jobs WHERE id = ?${at} AND status IN (${terminal}))`;
  return {
    guard: { sql: finished(3), params: [jobId] },
    statements: [
      db.prepare(`DELETE FROM job_tasks WHERE job_id = ?1 AND ${finished(1)}`).bind(jobId),
      db.prepare(`DELETE FROM job_outputs WHERE job_id = ?1 AND ${finished(1)}`).bind(jobId),
      db.prepare(`DELETE FROM output_uploads WHERE job_id = ?1 AND ${finished(1)}`).bind(jobId),
      db.prepare(`DELETE FROM assets WHERE job_id = ?1 AND origin = 'output' AND ${finished(1)}`).bind(jobId),
      db.prepare(`DELETE FROM jobs WHERE id = ?1 AND status IN (${terminal})`).bind(jobId),
    ],
  };
}

/** Records why a queued job waits (or that it no longer does): only while queued, only when it changed. */
export async function setQueuedReason(db: D1Database, jobId: string, reason: string | null): Promise<void> {
  const stored = reason === null ? null : headBytes(reason, JOB_COLUMN_MAX_BYTES.queued_reason);
  await db
    .prepare("UPDATE jobs SET queued_reason = ?2 WHERE id = ?1 AND status = 'queued' AND queued_reason IS NOT ?2")
    .bind(jobId, stored)
    .run();
}
