import type { z } from "zod";
import type { jobSummarySchema } from "../../api/schemas/jobs.ts";
import { progressView } from "./job-progress.ts";
import type { JobTimings } from "./job-timings.ts";
import { COMMAND_PREVIEW_CHARS, ERROR_PREVIEW_CHARS } from "../request/limits.ts";
import type { JobRow } from "../store/job-row.ts";

/**
 * A job as `GET /v1/jobs` lists it: read from columns whose size the service bounds, never
 * from the request, stdout, stderr, inputs or outputs. A job row can hold ~1 MiB of request and
 * 256 KiB of stdout; a page of 101 whole rows was ~140 MB against the Worker's 128 MB isolate. The
 * job's whole form stays at `GET /v1/jobs/{id}`.
 */
export type JobSummary = z.infer<typeof jobSummarySchema>;

/** The job's columns a summary reads as they are: each is a few fields the service writes itself, or the bounded metadata. */
export const JOB_SUMMARY_COLUMNS = [
  "id",
  "binary",
  "mode",
  "status",
  "queued_reason",
  "runtime_seconds",
  "credits_charged",
  "attempts",
  "timings_json",
  "error_code",
  "failed_step",
  "created_at",
  "started_at",
  "finished_at",
  "progress_json",
  "metadata_json",
] as const;

export type JobSummaryRow = Pick<JobRow, Exclude<(typeof JOB_SUMMARY_COLUMNS)[number], "metadata_json">> & {
  metadata_json: string | null;
  preset: string | null;
  command: string;
  error_message: string | null;
};

/**
 * Whether SQL text `expr` holds a NUL. SQLite's length() and substr() read text only up to its first
 * NUL (a value "\u0000" + 4,000 characters has length 0): such text is measured and cut as if it ended
 * there, never taken for short. The API refuses NUL in arguments (src/jobs/policy/argument-policy.ts);
 * rows stored before that may hold it.
 */
const hasNulSql = (expr: string) => `instr(CAST(${expr} AS BLOB), x'00') > 0`;

/** `expr` (SQL text) as at most `chars` characters, ending in `…` when it was longer (or held a NUL: cut there). */
const cutSql = (expr: string, chars: number) =>
  `SELECT CASE WHEN length(v) > ${chars} OR ${hasNulSql("v")} THEN substr(v, 1, ${chars - 1}) || '…' ELSE v END FROM (SELECT (${expr}) AS v)`;

/** An argument's length as the command's window counts it: one with a NUL fills the window (length() would say less). */
const ARG_LENGTH_SQL = `CASE WHEN ${hasNulSql("value")} THEN ${COMMAND_PREVIEW_CHARS} ELSE length(value) END`;

/** One argument as a POSIX shell word, as the dashboard's shellWord writes it (placeholders such as {{video}} stay plain). */
const SHELL_WORD_SQL = `CASE WHEN arg.value <> '' AND arg.value NOT GLOB '*[^A-Za-z0-9_./:=@%+,{}-]*' THEN arg.value
  ELSE '''' || replace(arg.value, '''', '''\\''''') || '''' END`;

/**
 * The command line of the job, as the dashboard's commandLine() writes it from the full form (the
 * planned arguments of a preset job that ran, else as created; steps joined with &&), built in SQL so
 * that only its first COMMAND_PREVIEW_CHARS reach the Worker. Only a step's arguments that start
 * within COMMAND_PREVIEW_CHARS characters of it (counted unquoted: quoting only adds) are quoted and
 * joined, which keeps the cost per job to a few arguments (quoting all of 1 MiB took ~50 ms a job).
 */
const COMMAND_SQL = `SELECT group_concat(line, ' && ') FROM (
  SELECT coalesce(json_extract(step.value, '$.binary'), jobs.binary) || coalesce((
    SELECT ' ' || group_concat(word, ' ') FROM (
      SELECT ${SHELL_WORD_SQL} AS word FROM (
        SELECT key, value, sum(${ARG_LENGTH_SQL} + 1) OVER (ORDER BY key) - (${ARG_LENGTH_SQL}) - 1 AS start FROM json_each(step.value, '$.args')) AS arg
      WHERE arg.start < ${COMMAND_PREVIEW_CHARS} ORDER BY arg.key)), '') AS line
  FROM json_each(CASE WHEN json_type(jobs.request_json, '$.steps') = 'array' THEN json_extract(jobs.request_json, '$.steps')
    ELSE json_array(json_object('binary', jobs.binary, 'args', json(coalesce(jobs.planned_args_json, json_extract(jobs.request_json, '$.args'))))) END) AS step
  ORDER BY step.key)`;

/** Fields a summary computes in SQL (for keysetPage on the `jobs` table): bounded extracts of the large columns. */
export const JOB_SUMMARY_COMPUTED = {
  preset: "json_extract(jobs.request_json, '$.preset')",
  command: cutSql(COMMAND_SQL, COMMAND_PREVIEW_CHARS),
  error_message: cutSql("jobs.error_message", ERROR_PREVIEW_CHARS),
} as const;

export function jobSummary(row: JobSummaryRow): JobSummary {
  return {
    id: row.id,
    binary: row.binary,
    mode: row.mode,
    status: row.status,
    queuedReason: row.status === "queued" ? (row.queued_reason ?? null) : null,
    preset: row.preset,
    command: row.command,
    metadata: row.metadata_json ? (JSON.parse(row.metadata_json) as Record<string, string>) : {},
    progress: row.status === "running" && row.progress_json ? progressView(row.progress_json) : null,
    attempts: row.attempts,
    runtimeSeconds: row.runtime_seconds,
    creditsCharged: row.credits_charged,
    timings: row.timings_json ? (JSON.parse(row.timings_json) as JobTimings) : null,
    errorCode: row.error_code,
    errorMessage: row.error_message,
    failedStep: row.failed_step ?? null,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}
