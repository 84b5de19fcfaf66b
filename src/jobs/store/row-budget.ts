import {
  MAX_REQUEST_BODY_BYTES,
  MAX_STDERR_TAIL_BYTES,
  MAX_STDOUT_BYTES,
  MAX_URL_LENGTH_CHARS,
} from "../request/limits.ts";
import { headBytes, tailBytes } from "./stored-bytes.ts";
import type { JobEnding } from "../lifecycle/job-endings.ts";

/**
 * D1 refuses a row over 2,000,000 bytes (src/platform/d1-row-size.ts), and a refused write of a
 * job's end would leave it running for ever. So every column that grows with what a client sends or
 * a runner reports has its share of the row, in bytes, enforced where it is written; the shares of a
 * job's row add up to less than a row (test/unit/row-budget.test.ts), and a worker test writes a job
 * at every share through the real code (test/worker/job-row-size.test.ts).
 */
export const JOB_COLUMN_MAX_BYTES = {
  /** The normalized request (prepareJob refuses a job whose stored form is larger: at most this over the body's 1 MiB). */
  request_json: MAX_REQUEST_BODY_BYTES + 64 * 1024,
  /** The request's metadata again (the schema's 32 entries of 64 + 512 UTF-16 units: at most 6 bytes each as JSON). */
  metadata_json: 112 * 1024,
  /** The request's webhook URL again (2048 UTF-16 units, at most 3 bytes each). */
  webhook_url: MAX_URL_LENGTH_CHARS * 3,
  /** The runner's cut stdout, in bytes, and the line that says it was cut. */
  stdout: MAX_STDOUT_BYTES + 64,
  stderr_tail: MAX_STDERR_TAIL_BYTES + 64,
  error_message: 8 * 1024,
  planned_args_json: 64 * 1024,
  input_reads_json: 8 * 1024,
  timings_json: 2 * 1024,
  progress_json: 1024,
  queued_reason: 4 * 1024,
  /** What was sent to the client's storage; a directory's file list is left out where it does not fit (delivered-outputs.ts). */
  delivered_json: 332 * 1024,
  /** Every output's check results (src/jobs/checks/stored-checks.ts: the failures kept first where all do not fit). */
  checks_json: 48 * 1024,
  /** What a preset measured and decided as it planned: a few numbers and a sentence (a larger one is left out). */
  preset_report_json: 2 * 1024,
  container_start: 256,
} as const;

/** The columns that hold only ids, states, codes, numbers and times: at most this many bytes together, with the record's header. */
export const JOB_FIXED_COLUMNS = [
  "id",
  "account_id",
  "binary",
  "mode",
  "status",
  "exit_code",
  "runtime_seconds",
  "credits_charged",
  "charge_applied",
  "error_code",
  "created_at",
  "started_at",
  "finished_at",
  "updated_at",
  "attempts",
  "dispatched_at",
  "failed_step",
  "metrics_applied",
] as const;
export const JOB_FIXED_COLUMNS_MAX_BYTES = 4096;

/** An output's ffprobe summary, stored with it and shown in every view of its job (null when larger: over ~100 streams). */
export const OUTPUT_METADATA_MAX_BYTES = 16 * 1024;

/**
 * The most files a directory output may hold (the operator's MAX_DIRECTORY_FILES): its list is kept
 * in its output's row, a file at most 300 bytes there (a plain name of up to 255 characters and its size).
 */
export const MAX_DIRECTORY_FILES_LIMIT = 5000;
export const DIRECTORY_FILE_ENTRY_MAX_BYTES = 300;

/**
 * A stored copy of a job's full form (a webhook event's body, an idempotent request's answer): the
 * request and every output with its summary fit; where a directory output's file list (each file's
 * download URL) does not, the copy leaves the lists out (a webhook event) or is not kept (an answer,
 * replayed as a redirect to the job).
 */
export const STORED_VIEW_MAX_BYTES = 1_800_000;

/** A job's end as its row can hold it: text cut to its share (stdout's start, stderr's end), JSON left out where larger. */
export function storedEnding(f: JobEnding): JobEnding {
  const max = JOB_COLUMN_MAX_BYTES;
  return {
    ...f,
    errorCode: f.errorCode === null ? null : (headBytes(f.errorCode, ERROR_CODE_MAX_BYTES) as JobEnding["errorCode"]),
    errorMessage: f.errorMessage === null ? null : headBytes(f.errorMessage, max.error_message),
    stdout: f.stdout === null ? null : headBytes(f.stdout, max.stdout),
    stderrTail: f.stderrTail === null ? null : tailBytes(f.stderrTail, max.stderr_tail),
  };
}

/** Error codes are the registry's (src/api/error-codes.ts), which a runner's report is not checked against. */
const ERROR_CODE_MAX_BYTES = 64;
