import type { RunnerOutcome } from "../../runner/runner-protocol.ts";
import type { JobErrorCode } from "../../api/error-codes.ts";
import type { JobSpec } from "../request/job-request.ts";
import { sourcesOf, TERMINAL_STATUSES, type JobStatus } from "../transitions/job-states.ts";
import { keysetPage, type Cursor } from "../../storage/keyset-page.ts";
import type { JobTimings } from "../views/job-timings.ts";
import { JOB_SUMMARY_COLUMNS, JOB_SUMMARY_COMPUTED, type JobSummaryRow } from "../views/job-summary.ts";
import { JOB_COLUMN_MAX_BYTES, storedFinish } from "./row-budget.ts";
import { boundedJson, headBytes } from "./stored-bytes.ts";

export type JobRow = {
  id: string;
  account_id: string;
  binary: "ffmpeg" | "ffprobe";
  mode: "raw" | "preset";
  status: JobStatus;
  request_json: string;
  webhook_url: string | null;
  progress_json: string | null;
  exit_code: number | null;
  runtime_seconds: number;
  credits_charged: number;
  error_code: string | null;
  error_message: string | null;
  stdout: string | null;
  stderr_tail: string | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** Runner hand-overs so far (src/jobs/lifecycle/retry-policy.ts). */
  attempts: number;
  /** When the current attempt was handed to a runner; null while the job waits for a hand-over. */
  dispatched_at: string | null;
  /** JSON JobTimings, once the job finished with a runner report. */
  timings_json: string | null;
  /** Multi-step jobs that failed: the index of the failing step. */
  failed_step: number | null;
  planned_args_json: string | null;
  input_reads_json: string | null;
  /** Outputs sent to the user's own storage (delivered-outputs.ts), JSON; null if none. */
  delivered_json?: string | null;
  /** Why a queued job waits (the jobs whose outputs it reads); null otherwise. */
  queued_reason?: string | null;
};

export type JobFinish = {
  status: "completed" | "failed" | "canceled" | "rejected";
  exitCode: number | null;
  runtimeSeconds: number;
  creditsCharged: number;
  errorCode: JobErrorCode | null;
  errorMessage: string | null;
  stdout: string | null;
  stderrTail: string | null;
  timings?: JobTimings | null;
  failedStep?: number | null;
  /** Preset jobs: what the runner planned from the inputs and ran. */
  plannedArgs?: string[] | null;
  /** Bytes per input read by the job's commands and fetched from the origin. */
  inputReads?: RunnerOutcome["inputReads"] | null;
};

/** A preset job's planned arguments, as its runner reported them (null before it ran, and for raw jobs). */
export function plannedArgsOf(row: Pick<JobRow, "planned_args_json">): string[] | null {
  return row.planned_args_json ? (JSON.parse(row.planned_args_json) as string[]) : null;
}

export function jobSpecOf(row: JobRow): JobSpec {
  return JSON.parse(row.request_json) as JobSpec;
}

export async function insertJob(db: D1Database, job: { id: string; accountId: string; spec: JobSpec; now: string }): Promise<void> {
  await db
    .prepare(
      `INSERT INTO jobs (id, account_id, binary, mode, status, request_json, webhook_url, created_at, updated_at, metadata_json)
       VALUES (?1, ?2, ?3, ?7, 'queued', ?4, ?5, ?6, ?6, ?8)`,
    )
    .bind(job.id, job.accountId, job.spec.binary, JSON.stringify(job.spec), job.spec.webhookUrl, job.now, job.spec.mode ?? "raw",
      job.spec.metadata ? JSON.stringify(job.spec.metadata) : null)
    .run();
}

/** A job by id; with an account id, another account's job is indistinguishable from a missing one. */
export async function getJob(db: D1Database, id: string, accountId?: string): Promise<JobRow | null> {
  const sql = accountId ? "SELECT * FROM jobs WHERE id = ?1 AND account_id = ?2" : "SELECT * FROM jobs WHERE id = ?1";
  const stmt = accountId ? db.prepare(sql).bind(id, accountId) : db.prepare(sql).bind(id);
  return stmt.first<JobRow>();
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
 * Moves a job to a terminal state and charges its account, atomically and at most once: the status
 * guard makes a late or duplicate finish change nothing, and `charge_applied` makes the debit idempotent.
 * `alongside` statements join the same batch (the webhook outbox row); their results come back.
 */
export async function finishJob(
  db: D1Database,
  id: string,
  finish: JobFinish,
  now: string,
  alongside: D1PreparedStatement[] = [],
): Promise<{ moved: boolean; alongside: D1Result[] }> {
  const from = sourcesOf(finish.status);
  const guard = from.map((s) => `'${s}'`).join(", ");
  // What the runner reported, cut to the row's shares (src/jobs/store/row-budget.ts): D1 refuses a larger row.
  finish = storedFinish(finish);
  const max = JOB_COLUMN_MAX_BYTES;
  const [update, , , ...rest] = await db.batch([
    db
      .prepare(
        `UPDATE jobs SET status = ?2, exit_code = ?3, runtime_seconds = ?4, credits_charged = ?5, error_code = ?6,
           error_message = ?7, stdout = ?8, stderr_tail = ?9, finished_at = ?10, updated_at = ?10, timings_json = ?11,
           failed_step = ?12, planned_args_json = ?13, input_reads_json = ?14, started_at = COALESCE(started_at, CASE WHEN ?4 > 0 THEN ?10 END)
         WHERE id = ?1 AND status IN (${guard})`,
      )
      .bind(id, finish.status, finish.exitCode, finish.runtimeSeconds, finish.creditsCharged, finish.errorCode,
        finish.errorMessage, finish.stdout, finish.stderrTail, now, boundedJson(finish.timings, max.timings_json),
        finish.failedStep ?? null, boundedJson(finish.plannedArgs, max.planned_args_json), boundedJson(finish.inputReads, max.input_reads_json)),
    db
      .prepare(
        `UPDATE accounts SET credit_balance = credit_balance - (SELECT credits_charged FROM jobs WHERE id = ?1)
         WHERE credit_balance IS NOT NULL
           AND id = (SELECT account_id FROM jobs WHERE id = ?1 AND charge_applied = 0 AND finished_at IS NOT NULL)`,
      )
      .bind(id),
    db.prepare("UPDATE jobs SET charge_applied = 1 WHERE id = ?1 AND charge_applied = 0 AND finished_at IS NOT NULL").bind(id),
    ...alongside,
  ]);
  return { moved: update.meta.changes === 1, alongside: rest };
}

/**
 * Newest first, keyset-paginated (src/storage/keyset-page.ts); `metadata` entries must all match. Rows
 * as a list shows them (src/jobs/views/job-summary.ts): bounded columns only, never the whole row.
 */
export function listJobs(db: D1Database, accountId: string, q: { limit: number; cursor?: Cursor; status?: JobStatus; metadata?: Record<string, string> }) {
  const filters: [string, unknown][] = [["account_id", accountId]];
  if (q.status) filters.push(["status", q.status]);
  // Keys are [A-Za-z0-9_.:-] (checked by the caller), so the quoted JSON path cannot be escaped.
  const conditions = Object.entries(q.metadata ?? {}).map(([k, v]) => ({ sql: "json_extract(metadata_json, ?) = ?", params: [`$."${k}"`, v] }));
  return keysetPage<JobSummaryRow>(db, { table: "jobs", columns: JOB_SUMMARY_COLUMNS, computed: JOB_SUMMARY_COMPUTED, filters, conditions, limit: q.limit, cursor: q.cursor });
}

/**
 * The statements that delete a finished job's rows, the job's last so that nothing is left pointing at
 * it (job_tasks and job_outputs hold foreign keys to it): its split tasks, its outputs' records, then
 * the job. Each is guarded by the job being finished, so a batch of them changes nothing otherwise.
 * `guard` is that condition with the job id at ?3, for statements joining the same batch.
 */
export function finishedJobDeletes(db: D1Database, jobId: string): { guard: { sql: string; params: unknown[] }; statements: D1PreparedStatement[] } {
  const terminal = TERMINAL_STATUSES.map((s) => `'${s}'`).join(", ");
  const finished = (at: number) => `EXISTS (SELECT 1 FROM jobs WHERE id = ?${at} AND status IN (${terminal}))`;
  return {
    guard: { sql: finished(3), params: [jobId] },
    statements: [
      db.prepare(`DELETE FROM job_tasks WHERE job_id = ?1 AND ${finished(1)}`).bind(jobId),
      db.prepare(`DELETE FROM job_outputs WHERE job_id = ?1 AND ${finished(1)}`).bind(jobId),
      db.prepare(`DELETE FROM assets WHERE job_id = ?1 AND origin = 'output' AND ${finished(1)}`).bind(jobId),
      db.prepare(`DELETE FROM jobs WHERE id = ?1 AND status IN (${terminal})`).bind(jobId),
    ],
  };
}

/** Records why a queued job waits (or that it no longer does): only while queued, only when it changed. */
export async function setQueuedReason(db: D1Database, jobId: string, reason: string | null): Promise<void> {
  const stored = reason === null ? null : headBytes(reason, JOB_COLUMN_MAX_BYTES.queued_reason);
  await db.prepare("UPDATE jobs SET queued_reason = ?2 WHERE id = ?1 AND status = 'queued' AND queued_reason IS NOT ?2").bind(jobId, stored).run();
}
