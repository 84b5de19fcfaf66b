import type { Config } from "../config.ts";
import { DIRECTORY_FILE_PATTERN } from "../jobs/placeholders.ts";
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
export async function directoryFileUrls(storage: Config["storage"], origin: string, jobId: string, outputName: string, files: DirectoryFile[], ttlSeconds: number, nowMs = Date.now()) {
  const token = await signToken(storage, "read", jobId, outputName, nowMs + ttlSeconds * 1000);
  const base = `${origin}${DIRECTORY_DOWNLOAD_PREFIX}${jobId}/${outputName}/${token}/`;
  return files.map((f) => ({ path: f.path, size: f.size, contentType: contentTypeFor(f.path), downloadUrl: base + encodeURIComponent(f.path) }));
}

/** The runner's write token for a job's directory outputs (checked when it uploads their files). */
export function runnerWriteToken(storage: Config["storage"], jobId: string, outputName: string, ttlSeconds: number, nowMs = Date.now()): Promise<string> {
  return signToken(storage, "write", jobId, outputName, nowMs + ttlSeconds * 1000);
}

/**
 * Stores one file a runner uploaded for a directory output (`PUT …/jobs/<job>/<output>/<file>` with
 * `Authorization: Bearer <write token>`). The token binds job and output; the file name is plain.
 */
export async function acceptRunnerFile(bucket: R2Bucket, storage: Config["storage"], req: Request, nowMs = Date.now()): Promise<Response> {
  const m = /\/jobs\/([0-9a-f-]{36})\/([A-Za-z0-9_]{1,64})\/([^/]+)$/.exec(new URL(req.url).pathname);
  const path = m ? decodeURIComponent(m[3]) : "";
  if (req.method !== "PUT" || !m || !isDirectoryFilePath(path)) return new Response("not a directory output file", { status: 404 });
  const token = /^Bearer (\S+)$/.exec(req.headers.get("authorization") ?? "")?.[1] ?? "";
  if (!(await verifyToken(storage, "write", m[1], m[2], token, nowMs))) return new Response("bad token", { status: 403 });
  const length = Number(req.headers.get("content-length"));
  if (!req.body || !Number.isSafeInteger(length)) return new Response("content-length required", { status: 411 });
  await bucket.put(directoryFileKey(m[1], m[2], path), req.body, { httpMetadata: { contentType: contentTypeFor(path) } });
  return new Response(null, { status: 201 });
}
