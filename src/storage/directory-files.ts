import type { Config } from "../config.ts";
import type { JobSpec } from "../jobs/request/job-request.ts";
import { DIRECTORY_FILE_PATTERN } from "../jobs/request/placeholders.ts";
import { contentTypeFor } from "./content-types.ts";
import { objectKeys } from "./presigner.ts";
import { signToken, verifyToken } from "./url-signing.ts";

/**
 * The files of a directory output (HLS renditions, image sequences) live under one key prefix,
 * `outputs/<job>/<output>/<file>`, and are read through the Worker at
 * `/outputs/<job>/<output>/<token>/<file>`: one signed path prefix per output, so the relative URLs
 * inside a playlist resolve to URLs that carry the same token and still work.
 */
export const DIRECTORY_DOWNLOAD_PREFIX = "/outputs/";

export type DirectoryFile = { path: string; size: number };

export function isDirectoryFilePath(path: string): boolean {
  return DIRECTORY_FILE_PATTERN.test(path) && !path.includes("%");
}

export function directoryFileKey(jobId: string, outputName: string, path: string): string {
  return objectKeys.output(jobId, outputName, path);
}

/** Signed URLs for every file of a directory output, valid for `ttlSeconds`. */
export async function directoryFileUrls(
  storage: Config["storage"],
  origin: string,
  jobId: string,
  outputName: string,
  files: DirectoryFile[],
  ttlSeconds: number,
  nowMs = Date.now(),
) {
  const token = await signToken(storage, "read", jobId, outputName, nowMs + ttlSeconds * 1000);
  const base = `${origin}${DIRECTORY_DOWNLOAD_PREFIX}${jobId}/${outputName}/${token}/`;
  return files.map((f) => ({
    path: f.path,
    size: f.size,
    contentType: contentTypeFor(f.path),
    downloadUrl: base + encodeURIComponent(f.path),
  }));
}

/** The runner's write token for a job's directory outputs, for one attempt (checked when it uploads their files). */
export function runnerWriteToken(
  storage: Config["storage"],
  jobId: string,
  outputName: string,
  attempt: number,
  ttlSeconds: number,
  nowMs = Date.now(),
): Promise<string> {
  return signToken(storage, "write", jobId, `${outputName}/${attempt}`, nowMs + ttlSeconds * 1000);
}

export type RunnerFileLimits = { maxFileBytes: number; maxFiles: number; maxOutputBytes: number };

/**
 * Stores one file a runner uploaded for a directory output (`PUT …/jobs/<job>/<output>/<attempt>/<file>`
 * with `Authorization: Bearer <write token>`). The token binds job, output and attempt; it is
 * honoured only while the job is running that attempt (a finished job's files, or a lost
 * attempt's runner, can change nothing), within a size per file and per output and a file count.
 */
export async function acceptRunnerFile(
  bucket: R2Bucket,
  db: D1Database,
  storage: Config["storage"],
  limits: RunnerFileLimits,
  req: Request,
  nowMs = Date.now(),
): Promise<Response> {
  const m = /\/jobs\/([0-9a-f-]{36})\/([A-Za-z0-9_]{1,64})\/(\d{1,4})\/([^/]+)$/.exec(new URL(req.url).pathname);
  const path = m ? decodeURIComponent(m[4]) : "";
  if (req.method !== "PUT" || !m || !isDirectoryFilePath(path))
    return new Response("not a directory output file", { status: 404 });
  const [, jobId, output, attempt] = m;
  const token = /^Bearer (\S+)$/.exec(req.headers.get("authorization") ?? "")?.[1] ?? "";
  if (!(await verifyToken(storage, "write", jobId, `${output}/${attempt}`, token, nowMs)))
    return new Response("bad token", { status: 403 });
  const job = await db
    .prepare("SELECT status, attempts, request_json FROM jobs WHERE id = ?1")
    .bind(jobId)
    .first<{ status: string; attempts: number; request_json: string }>();
  // A file output's token (its parts: output-parts.ts) stores nothing here: only a directory the service keeps.
  if (!job || !isStoredDirectory(job.request_json, output))
    return new Response("not a directory output", { status: 404 });
  if (job.status !== "running" || job.attempts !== Number(attempt)) {
    return new Response("the job is not running this attempt: its files can no longer change", { status: 409 });
  }
  const length = Number(req.headers.get("content-length"));
  if (!req.body || !Number.isSafeInteger(length)) return new Response("content-length required", { status: 411 });
  if (length > limits.maxFileBytes)
    return new Response(`a file may hold at most ${limits.maxFileBytes} bytes`, { status: 413 });
  const key = directoryFileKey(jobId, output, path);
  const stored = await storedFiles(bucket, directoryFileKey(jobId, output, ""), key);
  if (stored.count + 1 > limits.maxFiles || stored.bytes + length > limits.maxOutputBytes) {
    return new Response(`the output may hold at most ${limits.maxFiles} files and ${limits.maxOutputBytes} bytes`, {
      status: 413,
    });
  }
  await bucket.put(key, req.body, { httpMetadata: { contentType: contentTypeFor(path) } });
  return new Response(null, { status: 201 });
}

function isStoredDirectory(requestJson: string, name: string): boolean {
  const { outputs } = JSON.parse(requestJson) as JobSpec;
  const declared = Object.hasOwn(outputs, name) ? outputs[name] : undefined;
  return declared?.kind === "directory" && !declared.destination;
}

/** The files already under an output's prefix, other than the one being replaced. */
async function storedFiles(
  bucket: R2Bucket,
  prefix: string,
  replacing: string,
): Promise<{ count: number; bytes: number }> {
  let count = 0;
  let bytes = 0;
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix, cursor });
    for (const o of page.objects) {
      if (o.key === replacing) continue;
      count++;
      bytes += o.size;
    }
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return { count, bytes };
}
