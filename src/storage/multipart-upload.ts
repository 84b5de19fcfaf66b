import * as L from "../jobs/request/limits.ts";
import type { AssetRow } from "./asset-store.ts";
import type { PresignedUrl, Presigner } from "./presigner.ts";

/**
 * Uploads in parts (S3 multipart, as R2 supports it): the Worker starts and completes the upload
 * through the bucket binding; the client PUTs each part straight to storage with a presigned
 * UploadPart URL, so the bytes never pass through the Worker, and a part that failed is sent again
 * with a fresh URL. R2 aborts an upload left incomplete after 7 days.
 */
export function partPlan(size: number, asked?: number): { partSizeBytes: number; partCount: number } {
  const fitting = Math.ceil(size / L.MAX_PARTS / (1024 * 1024)) * 1024 * 1024;
  const partSizeBytes = asked ?? Math.max(L.DEFAULT_PART_BYTES, fitting);
  return { partSizeBytes, partCount: Math.max(1, Math.ceil(size / partSizeBytes)) };
}

export async function startMultipart(bucket: R2Bucket, objectKey: string, contentType: string): Promise<string> {
  return (await bucket.createMultipartUpload(objectKey, { httpMetadata: { contentType } })).uploadId;
}

export type PendingMultipart = Pick<AssetRow, "id" | "object_key" | "size" | "status" | "content_type"> & {
  multipart_upload_id: string;
  part_size: number;
};

export function pendingMultipart(asset: AssetRow): PendingMultipart | null {
  if (asset.status !== "pending" || !asset.multipart_upload_id || !asset.part_size) return null;
  return asset as PendingMultipart;
}

/** Fresh PUT URLs for these parts (the first time, or again for one that failed); parts past the plan are refused. */
export async function partUrls(
  presigner: Presigner,
  upload: PendingMultipart,
  partNumbers: number[],
): Promise<{ urls: (PresignedUrl & { partNumber: number; method: "PUT" })[] } | { problem: string }> {
  const { partCount } = partPlan(upload.size ?? 0, upload.part_size);
  const outside = partNumbers.find((n) => n > partCount);
  if (outside !== undefined) return { problem: `part ${outside} is past the last part (${partCount})` };
  const urls = await Promise.all(
    [...new Set(partNumbers)].map(async (partNumber) => ({
      partNumber,
      method: "PUT" as const,
      ...(await presigner.presign("PUT", upload.object_key, L.UPLOAD_URL_TTL_SECONDS, {
        query: { partNumber: String(partNumber), uploadId: upload.multipart_upload_id },
      })),
    })),
  );
  return { urls };
}

/**
 * Completes the upload from the parts the client sent: every part of the plan, each with the ETag
 * storage gave it. A file that does not add up to the size the slot declared is deleted, not kept;
 * storage has spent the upload on it (`spent`), so the caller gives the slot a fresh one.
 */
export async function completeMultipart(
  bucket: R2Bucket,
  upload: PendingMultipart,
  parts: { partNumber: number; etag: string }[],
): Promise<{ size: number } | { problem: string; spent?: true }> {
  const { partCount } = partPlan(upload.size ?? 0, upload.part_size);
  const numbers = new Set(parts.map((p) => p.partNumber));
  const missing = Array.from({ length: partCount }, (_, i) => i + 1).find((n) => !numbers.has(n));
  if (missing !== undefined || numbers.size !== parts.length || parts.length !== partCount) {
    return {
      problem:
        missing !== undefined
          ? `part ${missing} is missing: every part from 1 to ${partCount} is needed, once`
          : `every part from 1 to ${partCount} is needed, once`,
    };
  }
  let object: R2Object;
  try {
    const ordered = [...parts]
      .sort((a, b) => a.partNumber - b.partNumber)
      .map((p) => ({ partNumber: p.partNumber, etag: p.etag.replace(/^"|"$/g, "") }));
    object = await bucket.resumeMultipartUpload(upload.object_key, upload.multipart_upload_id).complete(ordered);
  } catch (err) {
    return {
      problem: `storage refused to complete the upload: ${err instanceof Error ? err.message.slice(0, 200) : "unknown error"} (send every part, each with the ETag its PUT returned)`,
    };
  }
  if (upload.size !== null && object.size !== upload.size) {
    await bucket.delete(upload.object_key);
    return {
      problem: `the parts add up to ${object.size} bytes, but the upload declared ${upload.size}; the file was not kept: ask /parts for new URLs and send every part again`,
      spent: true,
    };
  }
  return { size: object.size };
}

/**
 * Puts a fresh multipart upload behind a slot whose upload storage spent on a file it did not keep,
 * so that the slot stays `pending` and usable (docs/api.md: "upload the parts again"): part URLs are
 * then issued for the new upload. The swap is one guarded UPDATE on the spent upload's id; if the
 * slot changed meanwhile (deleted, completed, already renewed), the fresh upload is aborted.
 */
export async function renewMultipart(bucket: R2Bucket, db: D1Database, upload: PendingMultipart): Promise<void> {
  const fresh = await startMultipart(bucket, upload.object_key, upload.content_type);
  const { meta } = await db
    .prepare(
      "UPDATE assets SET multipart_upload_id = ?3 WHERE id = ?1 AND status = 'pending' AND multipart_upload_id = ?2",
    )
    .bind(upload.id, upload.multipart_upload_id, fresh)
    .run();
  if (meta.changes !== 1)
    await bucket
      .resumeMultipartUpload(upload.object_key, fresh)
      .abort()
      .catch(() => {});
}

/** A deleted upload in progress: its parts go too. */
export async function abortMultipart(bucket: R2Bucket, asset: AssetRow): Promise<void> {
  const upload = pendingMultipart(asset);
  if (upload)
    await bucket
      .resumeMultipartUpload(upload.object_key, upload.multipart_upload_id)
      .abort()
      .catch(() => {});
}
