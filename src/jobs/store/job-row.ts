import type { JobStatus } from "../transitions/job-states.ts";

/** A job as D1 stores it (the `jobs` table, migrations/). */
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
  /** Each output's check results, JSON (src/jobs/checks/stored-checks.ts); null before the end, or without checks. */
  checks_json?: string | null;
  preset_report_json?: string | null;
  /** Why a queued job waits (the jobs whose outputs it reads); null otherwise. */
  queued_reason?: string | null;
};
