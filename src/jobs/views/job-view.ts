import type { Presigner } from "../../storage/presigner.ts";
import { progressView } from "./job-progress.ts";
import type { Config } from "../../config.ts";
import { directoryFileUrls, type DirectoryFile } from "../../storage/directory-files.ts";
import { DOWNLOAD_URL_TTL_SECONDS } from "../request/limits.ts";
import { jobSpecOf, plannedArgsOf } from "../store/job-store.ts";
import { jobSteps, jobTimeoutMs, type OutputDestination } from "../request/job-request.ts";
import { deliveredOutputsOf, objectUrlOf, shownUrl } from "../store/delivered-outputs.ts";
import type { OutputRow } from "../store/output-store.ts";
import type { JobTimings } from "./job-timings.ts";
import type { RunnerOutcome } from "../../runner/runner-protocol.ts";
import type { JobRow } from "../store/job-row.ts";
import { checksOfRow } from "../checks/stored-checks.ts";
import type { CheckResult } from "../checks/output-checks.ts";
import type { Receipt } from "./job-receipt.ts";
import type { PlanReport } from "../../presets/recipes/recipe.ts";

/**
 * What download URLs are made with: presigned S3 URLs for files; for directory outputs the Worker's
 * signed prefix at `origin` (the request's, else the one the job was created at, for webhooks).
 */
export type Links = { presigner: Presigner; storage: Config["storage"]; origin: string | null; jobTimeoutMs: number };

/** The spec's Output object, with fresh expiring download URLs. */
export async function outputView(
  o: OutputRow,
  links: Links,
  urlTtlSeconds = DOWNLOAD_URL_TTL_SECONDS,
  jobOrigin = "",
  checks: CheckResult[] = [],
) {
  // A download URL never outlives the bytes it points at.
  const ttlSeconds = o.expires_at
    ? Math.max(1, Math.min(urlTtlSeconds, Math.floor((Date.parse(o.expires_at) - Date.now()) / 1000)))
    : urlTtlSeconds;
  const files =
    o.kind === "directory" && o.files_json
      ? await directoryFileUrls(
          links.storage,
          links.origin ?? jobOrigin,
          o.job_id,
          o.label,
          JSON.parse(o.files_json) as DirectoryFile[],
          ttlSeconds,
        )
      : null;
  const url = files
    ? (files.find((f) => f.path === o.main_file) ?? files[0]).downloadUrl
    : (await links.presigner.presign("GET", o.object_key, ttlSeconds, { downloadName: o.file_name })).url;
  return {
    id: o.id,
    jobId: o.job_id,
    assetId: o.asset_id,
    label: o.label,
    contentType: o.content_type,
    kind: o.kind,
    metadata: o.metadata_json === null ? null : (JSON.parse(o.metadata_json) as unknown),
    sha256: o.sha256 ?? null,
    checks,
    createdAt: o.created_at,
    downloadUrl: url,
    ...(files ? { files } : {}),
  };
}

/** A destination as the job shows it: the URL without its signature, the headers' names without their values. */
function shownDestination(d: OutputDestination) {
  return {
    url: shownUrl(objectUrlOf(d)),
    headers: Object.keys(d.headers ?? {}),
    ...(d.parts ? { parts: { count: d.parts.urls.length, partSizeBytes: d.parts.partSizeBytes } } : {}),
  };
}

/** The job's full form: every spec field always present, null where it does not apply. */
export async function jobView(
  row: JobRow,
  outputs: OutputRow[],
  links: Links,
  urlTtlSeconds = DOWNLOAD_URL_TTL_SECONDS,
) {
  const timeoutMaxMs = links.jobTimeoutMs;
  const spec = jobSpecOf(row);
  const checks = checksOfRow(row);
  return {
    id: row.id,
    binary: row.binary,
    mode: row.mode,
    status: row.status,
    queuedReason: row.status === "queued" ? (row.queued_reason ?? null) : null,
    dependsOn: spec.dependsOn ?? [],
    runtimeSeconds: row.runtime_seconds,
    creditsCharged: row.credits_charged,
    attempts: row.attempts,
    timings: timingsOf(row),
    errorCode: row.error_code,
    errorMessage: row.error_message,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    outputs: await Promise.all(
      outputs
        .filter((o) => o.job_id === row.id)
        .map((o) => outputView(o, links, urlTtlSeconds, spec.apiOrigin, checks[o.label])),
    ),
    progress: row.status === "running" && row.progress_json ? progressView(row.progress_json) : null,
    ffmpegArgs: spec.args,
    steps: spec.steps ? spec.steps.map((step) => ({ binary: step.binary, ffmpegArgs: step.args })) : null,
    scratch: spec.scratch ?? null,
    failedStep: row.failed_step ?? null,
    inputs: spec.inputs,
    outputDeclarations: Object.fromEntries(
      Object.entries(spec.outputs).map(([name, o]) => [
        name,
        o.destination ? { ...o, destination: shownDestination(o.destination) } : o,
      ]),
    ),
    deliveredOutputs: deliveredOutputsOf(row.delivered_json),
    webhookUrl: spec.webhookUrl,
    preset: spec.preset ?? null,
    params: spec.params ?? null,
    template: spec.template ?? null,
    plannedArgs: plannedArgsOf(row),
    presetReport: row.preset_report_json ? (JSON.parse(row.preset_report_json) as PlanReport) : null,
    inputReads: row.input_reads_json
      ? (JSON.parse(row.input_reads_json) as NonNullable<RunnerOutcome["inputReads"]>)
      : null,
    metadata: spec.metadata ?? {},
    timeoutSeconds: Math.round(jobTimeoutMs(spec, timeoutMaxMs) / 1000),
    parallel: spec.parallel ?? null,
    checks,
    onFailedCheck: spec.onFailedCheck ?? "fail",
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

export async function jobResultView(row: JobRow, outputs: OutputRow[], links: Links, receipt: Receipt) {
  const view = await jobView(row, outputs, links);
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
    checks: view.checks,
    receipt,
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
