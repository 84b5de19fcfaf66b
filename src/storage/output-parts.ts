import { MAX_PARTS, MIN_PART_BYTES } from "../jobs/request/limits.ts";
import type { JobSpec, OutputDeclaration } from "../jobs/request/job-request.ts";
import { objectKeys } from "./presigner.ts";
import { verifyToken, type TokenSecrets } from "./url-signing.ts";

/**
 * A file output sent to storage while its command still writes it (container/src/output-streams.ts):
 * an R2 multipart upload under the key a single PUT would use, which the runner drives through the
 * Worker at `…/parts/<job>/<output>/<attempt>/<step>`:
 *   POST start → `{ uploadId }`; PUT part-<n> (header `x-upload-id`) → `{ etag }`;
 *   POST complete `{ uploadId, parts: [{ partNumber, etag }] }` → `{ size }`; POST abort `{ uploadId }`.
 * The output's write token (as for a directory's files) binds job, output and attempt; each call is
 * honoured only while the job runs that attempt, and only for a declared file output kept by the
 * service (not a directory, not the client's destination). Parts are R2's smallest, so the most of an
 * output is stored before its command exits; R2 (and the local bucket) refuse parts of other sizes.
 */
export const OUTPUT_PART_BYTES = MIN_PART_BYTES;

const ROUTE = /\/parts\/([0-9a-f-]{36})\/([A-Za-z0-9_]{1,64})\/(\d{1,4})\/(start|complete|abort|part-(\d{1,5}))$/;
const UPLOAD_ID_MAX_CHARS = 1024;
/** A completion's list: a part number and an ETag each, well within this. */
const JSON_BYTES_PER_PART = 128;

export function isOutputPartsPath(pathname: string): boolean {
  return ROUTE.test(pathname);
}

const answer = (status: number, text: string) => new Response(text, { status });

export async function acceptOutputParts(
  bucket: R2Bucket,
  db: D1Database,
  storage: TokenSecrets,
  maxOutputBytes: number,
  req: Request,
  nowMs = Date.now(),
): Promise<Response> {
  const m = ROUTE.exec(new URL(req.url).pathname);
  if (!m) return answer(404, "not an output part");
  const [, jobId, outputName, attempt, step, part] = m;
  if (req.method !== (part ? "PUT" : "POST")) return answer(405, `${step} takes ${part ? "PUT" : "POST"}`);
  const token = /^Bearer (\S+)$/.exec(req.headers.get("authorization") ?? "")?.[1] ?? "";
  if (!(await verifyToken(storage, "write", jobId, `${outputName}/${attempt}`, token, nowMs)))
    return answer(403, "bad token");
  const job = await db
    .prepare("SELECT status, attempts, request_json FROM jobs WHERE id = ?1")
    .bind(jobId)
    .first<{ status: string; attempts: number; request_json: string }>();
  if (job?.status !== "running" || job.attempts !== Number(attempt))
    return answer(409, "the job is not running this attempt: its outputs can no longer change");
  const outputs = (JSON.parse(job.request_json) as JobSpec).outputs;
  const declared: OutputDeclaration | undefined = Object.hasOwn(outputs, outputName) ? outputs[outputName] : undefined;
  if (!declared || declared.kind === "directory" || declared.destination)
    return answer(404, "not a file output the service stores");
  const key = objectKeys.output(jobId, outputName, declared.fileName);
  const maxParts = Math.min(MAX_PARTS, Math.ceil(maxOutputBytes / OUTPUT_PART_BYTES));
  try {
    if (step === "start") {
      const upload = await bucket.createMultipartUpload(key, { httpMetadata: { contentType: declared.contentType } });
      return Response.json({ uploadId: upload.uploadId, partSizeBytes: OUTPUT_PART_BYTES });
    }
    if (part) return await putPart(bucket, key, Number(part), maxParts, req);
    const body = await smallJson(req, 1024 + maxParts * JSON_BYTES_PER_PART);
    const uploadId = uploadIdOf(body?.uploadId);
    if (!uploadId) return answer(400, "uploadId required");
    const upload = bucket.resumeMultipartUpload(key, uploadId);
    if (step === "abort") {
      await upload.abort();
      return new Response(null, { status: 204 });
    }
    const parts = partList(body?.parts, maxParts);
    if (!parts) return answer(400, `parts: 1 to ${maxParts} of { partNumber, etag }, numbered from 1 in order`);
    const stored = await upload.complete(parts);
    return Response.json({ size: stored.size });
  } catch (err) {
    // R2 refuses an unknown upload, a part of the wrong size, an ETag it did not give: the runner sends whole instead.
    return answer(409, `storage refused: ${err instanceof Error ? err.message.slice(0, 200) : "unknown error"}`);
  }
}

async function putPart(bucket: R2Bucket, key: string, partNumber: number, maxParts: number, req: Request) {
  if (partNumber < 1 || partNumber > maxParts) return answer(400, `a part number is 1 to ${maxParts}`);
  const uploadId = uploadIdOf(req.headers.get("x-upload-id"));
  if (!uploadId) return answer(400, "x-upload-id required");
  const length = Number(req.headers.get("content-length"));
  if (!req.body || !Number.isSafeInteger(length) || length < 1) return answer(411, "content-length required");
  if (length > OUTPUT_PART_BYTES) return answer(413, `a part holds at most ${OUTPUT_PART_BYTES} bytes`);
  const uploaded = await bucket.resumeMultipartUpload(key, uploadId).uploadPart(partNumber, req.body);
  return Response.json({ etag: uploaded.etag });
}

function uploadIdOf(v: unknown): string | null {
  return typeof v === "string" && v.length > 0 && v.length <= UPLOAD_ID_MAX_CHARS ? v : null;
}

async function smallJson(req: Request, maxBytes: number): Promise<Record<string, unknown> | null> {
  const declared = req.headers.get("content-length");
  const length = Number(declared);
  if (declared === null || !Number.isSafeInteger(length) || length > maxBytes) return null;
  try {
    const v: unknown = JSON.parse(await req.text());
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Every part from 1 up, in order, each with the ETag storage gave it. */
function partList(v: unknown, maxParts: number): R2UploadedPart[] | null {
  if (!Array.isArray(v) || v.length < 1 || v.length > maxParts) return null;
  const parts = v.map((p, i) => {
    const { partNumber, etag } = (typeof p === "object" && p !== null ? p : {}) as Record<string, unknown>;
    return partNumber === i + 1 && typeof etag === "string" && etag.length > 0 && etag.length <= 256
      ? { partNumber, etag }
      : null;
  });
  return parts.every((p) => p !== null) ? (parts as R2UploadedPart[]) : null;
}
