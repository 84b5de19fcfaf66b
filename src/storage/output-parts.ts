import { MAX_PARTS, MIN_PART_BYTES } from "../jobs/request/limits.ts";
import type { JobSpec, OutputDeclaration } from "../jobs/request/job-request.ts";
import { objectKeys } from "./presigner.ts";
import { verifyToken, type TokenSecrets } from "./url-signing.ts";

/**
 * A file output sent to storage while its command still writes it (container/src/output-streams.ts):
 * an R2 multipart upload under the key a single PUT would use, which the runner drives through the
 * Worker at `/parts/<job>/<output>/<attempt>/<step>` (under the runner-files root):
 *   POST start → `{ uploadId }`; PUT part-<n> (header `x-upload-id`) → `{ etag }`;
 *   POST complete `{ uploadId, parts: [{ partNumber, etag }] }` → `{ size }`; POST abort `{ uploadId }`.
 * The output's write token binds job, output and attempt, and only a declared file output the service
 * stores (not a directory, not the client's destination) takes parts. An attempt starts at most one
 * upload per output (migrations/0018), and every later call must name it: one token holds at most one
 * output's worth of parts. Start, parts and completion need the job running that attempt; an abort
 * only discards, so it is taken after the job ended too (a cancel, a lost attempt). Parts are R2's
 * smallest, so the most of an output is stored before its command exits; R2 (and the local bucket)
 * refuse parts of other sizes.
 */
export const OUTPUT_PART_BYTES = MIN_PART_BYTES;

const ROUTE = /^\/parts\/([0-9a-f-]{36})\/([A-Za-z0-9_]{1,64})\/(\d{1,4})\/(start|complete|abort|part-(\d{1,5}))$/;
const UPLOAD_ID_MAX_CHARS = 1024;
/** A completion's list: a part number and an ETag each, well within this. */
const JSON_BYTES_PER_PART = 128;

/** `path` is relative to the runner-files root (src/runner/runner-files.ts). */
export function isOutputPartsPath(path: string): boolean {
  return ROUTE.test(path);
}

type Job = { status: string; attempts: number; request_json: string; upload_id: string | null };
const answer = (status: number, text: string) => new Response(text, { status });

export async function acceptOutputParts(
  bucket: R2Bucket,
  db: D1Database,
  storage: TokenSecrets,
  maxOutputBytes: number,
  req: Request,
  path: string,
  nowMs = Date.now(),
): Promise<Response> {
  const m = ROUTE.exec(path);
  if (!m) return answer(404, "not an output part");
  const [, jobId, outputName, attempt, step, part] = m;
  if (req.method !== (part ? "PUT" : "POST")) return answer(405, `${step} takes ${part ? "PUT" : "POST"}`);
  const token = /^Bearer (\S+)$/.exec(req.headers.get("authorization") ?? "")?.[1] ?? "";
  if (!(await verifyToken(storage, "write", jobId, `${outputName}/${attempt}`, token, nowMs)))
    return answer(403, "bad token");
  const job = await db
    .prepare(
      `SELECT jobs.status, jobs.attempts, jobs.request_json, u.upload_id FROM jobs
       LEFT JOIN output_uploads u ON u.job_id = jobs.id AND u.output = ?2 AND u.attempt = ?3 WHERE jobs.id = ?1`,
    )
    .bind(jobId, outputName, Number(attempt))
    .first<Job>();
  const declared = job ? storedFileOutput(job, outputName) : undefined;
  if (!job || !declared) return answer(404, "not a file output the service stores");
  const running = job.status === "running" && job.attempts === Number(attempt);
  if (!running && step !== "abort")
    return answer(409, "the job is not running this attempt: its outputs can no longer change");
  const key = objectKeys.output(jobId, outputName, declared.fileName);
  const maxParts = Math.min(MAX_PARTS, Math.ceil(maxOutputBytes / OUTPUT_PART_BYTES));
  try {
    if (step === "start") return await start(bucket, db, key, declared, job, [jobId, outputName, Number(attempt)]);
    const body = part ? null : await smallJson(req, 1024 + maxParts * JSON_BYTES_PER_PART);
    if (!part && !body) return answer(400, "a JSON object, with its content-length");
    const uploadId = part ? req.headers.get("x-upload-id") : body?.uploadId;
    if (typeof uploadId !== "string" || uploadId.length > UPLOAD_ID_MAX_CHARS || uploadId !== job.upload_id)
      return answer(409, "not this output's upload");
    const upload = bucket.resumeMultipartUpload(key, uploadId);
    if (part) return await putPart(upload, Number(part), maxParts, req);
    if (step === "abort") {
      await upload.abort();
      return new Response(null, { status: 204 });
    }
    const parts = partList(body?.parts, maxParts);
    if (!parts) return answer(400, `parts: 1 to ${maxParts} of { partNumber, etag }, numbered from 1 in order`);
    return Response.json({ size: (await upload.complete(parts)).size });
  } catch (err) {
    // R2 refuses an unknown upload, a part of the wrong size, an ETag it did not give: the runner sends whole instead.
    return answer(409, `storage refused: ${err instanceof Error ? err.message.slice(0, 200) : "unknown error"}`);
  }
}

function storedFileOutput(job: Job, name: string): OutputDeclaration | undefined {
  const { outputs } = JSON.parse(job.request_json) as JobSpec;
  const declared = Object.hasOwn(outputs, name) ? outputs[name] : undefined;
  return declared && declared.kind !== "directory" && !declared.destination ? declared : undefined;
}

/** The attempt's one upload for the output: a second start (or a lost race to the first) is refused. */
async function start(
  bucket: R2Bucket,
  db: D1Database,
  key: string,
  declared: OutputDeclaration,
  job: Job,
  [jobId, output, attempt]: [string, string, number],
): Promise<Response> {
  if (job.upload_id) return answer(409, "this output's upload is already started");
  const upload = await bucket.createMultipartUpload(key, { httpMetadata: { contentType: declared.contentType } });
  const kept = await db
    .prepare(
      `INSERT INTO output_uploads (job_id, output, attempt, upload_id, created_at) VALUES (?1, ?2, ?3, ?4, ?5)
       ON CONFLICT DO NOTHING`,
    )
    .bind(jobId, output, attempt, upload.uploadId, new Date().toISOString())
    .run();
  if (kept.meta.changes !== 1) {
    await upload.abort();
    return answer(409, "this output's upload is already started");
  }
  return Response.json({ uploadId: upload.uploadId, partSizeBytes: OUTPUT_PART_BYTES });
}

async function putPart(upload: R2MultipartUpload, partNumber: number, maxParts: number, req: Request) {
  if (partNumber < 1 || partNumber > maxParts) return answer(400, `a part number is 1 to ${maxParts}`);
  const length = Number(req.headers.get("content-length"));
  if (!req.body || !Number.isSafeInteger(length) || length < 1) return answer(411, "content-length required");
  if (length > OUTPUT_PART_BYTES) return answer(413, `a part holds at most ${OUTPUT_PART_BYTES} bytes`);
  // Exactly the length declared: a body longer or shorter fails the part, whatever the framing said.
  const uploaded = await upload.uploadPart(partNumber, req.body.pipeThrough(new FixedLengthStream(length)));
  return Response.json({ etag: uploaded.etag });
}

async function smallJson(req: Request, maxBytes: number): Promise<Record<string, unknown> | null> {
  const declared = req.headers.get("content-length");
  const length = Number(declared);
  if (declared === null || !Number.isSafeInteger(length) || length > maxBytes) return null;
  try {
    const text = await req.text();
    if (text.length > maxBytes) return null;
    const v: unknown = JSON.parse(text);
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
