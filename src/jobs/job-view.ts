import type { Presigner } from "../storage/presigner.ts";
import { DOWNLOAD_URL_TTL_SECONDS } from "./limits.ts";
import { jobSpecOf, type JobRow } from "./job-store.ts";
import { jobSteps } from "./job-request.ts";
import type { OutputRow } from "./output-store.ts";
import type { JobTimings } from "./job-timings.ts";

/** The spec's Output object, with a fresh expiring download URL. */
export async function outputView(o: OutputRow, presigner: Presigner, ttlSeconds = DOWNLOAD_URL_TTL_SECONDS) {
  const { url } = await presigner.presign("GET", o.object_key, ttlSeconds, { downloadName: o.file_name });
  return {
    id: o.id,
    jobId: o.job_id,
    assetId: o.asset_id,
    label: o.label,
    contentType: o.content_type,
    kind: o.kind,
    metadata: o.metadata_json === null ? null : (JSON.parse(o.metadata_json) as unknown),
    createdAt: o.created_at,
    downloadUrl: url,
  };
}

/** The job's full form: every spec field always present, null where it does not apply. */
export async function jobView(row: JobRow, outputs: OutputRow[], presigner: Presigner, urlTtlSeconds = DOWNLOAD_URL_TTL_SECONDS) {
  const spec = jobSpecOf(row);
  return {
    id: row.id,
    binary: row.binary,
    mode: row.mode,
    status: row.status,
    runtimeSeconds: row.runtime_seconds,
    creditsCharged: row.credits_charged,
    attempts: row.attempts,
    timings: timingsOf(row),
    errorCode: row.error_code,
    errorMessage: row.error_message,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    outputs: await Promise.all(outputs.filter((o) => o.job_id === row.id).map((o) => outputView(o, presigner, urlTtlSeconds))),
    progress: row.status === "running" && row.progress_json ? (JSON.parse(row.progress_json) as unknown) : null,
    ffmpegArgs: spec.args,
    steps: spec.steps ? spec.steps.map((step) => ({ binary: step.binary, ffmpegArgs: step.args })) : null,
    scratch: spec.scratch ?? null,
    failedStep: row.failed_step ?? null,
    inputs: spec.inputs,
    outputDeclarations: spec.outputs,
    webhookUrl: spec.webhookUrl,
    preset: spec.preset ?? null,
    params: spec.params ?? null,
  };
}

/** ffprobe's JSON output parsed, when stdout is JSON; otherwise null. */
export function parseProbe(stdout: string | null): unknown {
  if (!stdout) return null;
  const trimmed = stdout.trim();
  if (!trimmed.startsWith("{") && !trimmed.startsWith("[")) return null;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    return null;
  }
}

export async function jobResultView(row: JobRow, outputs: OutputRow[], presigner: Presigner) {
  const view = await jobView(row, outputs, presigner);
  return {
    id: row.id,
    status: row.status,
    binary: row.binary,
    exitCode: row.exit_code,
    runtimeSeconds: row.runtime_seconds,
    creditsCharged: row.credits_charged,
    errorCode: row.error_code,
    errorMessage: row.error_message,
    outputs: view.outputs,
    stdout: row.stdout,
    stderrTail: row.stderr_tail,
    failedStep: row.failed_step ?? null,
    // The last command's stdout: a job that ends with an ffprobe step gets its JSON here too.
    probe: jobSteps(jobSpecOf(row)).at(-1)?.binary === "ffprobe" ? parseProbe(row.stdout) : null,
    timings: view.timings,
    finishedAt: row.finished_at,
  };
}

function timingsOf(row: JobRow): JobTimings | null {
  return row.timings_json ? (JSON.parse(row.timings_json) as JobTimings) : null;
}
