import { z } from "zod";
import * as L from "../../jobs/request/limits.ts";
import { contentType, fileName, pageQuery, timestamp, uuid } from "./common.ts";

/* Files: upload slots (one PUT, or S3 multipart in parts) and the records of uploads and job outputs. */

/** An upload slot; `contentType` defaults from the file name's extension, as for outputs. */
export const createFileSchema = z
  .object({
    fileName,
    contentType: contentType.optional(),
    size: z.number().int().min(0).max(L.MAX_UPLOAD_BYTES).optional(),
    /** Upload in parts (S3 multipart): needed above 5 GiB, and resumable part by part. */
    multipart: z.boolean().optional(),
    partSizeBytes: z.number().int().min(L.MIN_PART_BYTES).max(L.MAX_PART_BYTES).optional(),
  })
  .strict()
  .refine((b) => !b.multipart || b.size !== undefined, {
    path: ["size"],
    message: "a multipart upload needs the file's size",
  })
  .refine((b) => b.multipart === true || (b.size ?? 0) <= L.MAX_SINGLE_PUT_BYTES, {
    path: ["multipart"],
    message: `a file over ${L.MAX_SINGLE_PUT_BYTES} bytes is uploaded in parts: set "multipart": true`,
  })
  .refine((b) => b.partSizeBytes === undefined || b.multipart === true, {
    path: ["partSizeBytes"],
    message: "only a multipart upload has parts",
  })
  .refine((b) => b.partSizeBytes === undefined || Math.ceil((b.size ?? 0) / b.partSizeBytes) <= L.MAX_PARTS, {
    path: ["partSizeBytes"],
    message: `at most ${L.MAX_PARTS} parts: choose larger parts`,
  });

export const partUrlsRequestSchema = z
  .object({ partNumbers: z.array(z.number().int().min(1).max(L.MAX_PARTS)).min(1).max(L.MAX_PART_URLS_PER_REQUEST) })
  .strict();

export const completeUploadSchema = z
  .object({
    parts: z
      .array(
        z.object({ partNumber: z.number().int().min(1).max(L.MAX_PARTS), etag: z.string().min(1).max(256) }).strict(),
      )
      .min(1)
      .max(L.MAX_PARTS),
  })
  .strict();

export const listFilesQuerySchema = z
  .object({ ...pageQuery, origin: z.enum(["upload", "output"]).optional() })
  .strict();

export const assetSchema = z.object({
  id: uuid,
  fileName: z.string(),
  contentType: z.string(),
  size: z.number().int().nullable(),
  /** `expired`: retention deleted its bytes (the record stays). */
  status: z.enum(["pending", "ready", "expired"]),
  /** `upload` (sent by a client) or `output` (stored by a job, `jobId`). */
  origin: z.enum(["upload", "output"]),
  jobId: uuid.nullable(),
  createdAt: timestamp,
  /** When retention deletes its bytes (UPLOAD_RETENTION_DAYS, OUTPUT_RETENTION_DAYS). */
  expiresAt: timestamp.nullable(),
  /**
   * Only when the slot is created: one presigned PUT, or for a multipart upload the plan of its parts
   * (part URLs from `POST /v1/files/{id}/parts`, then `POST /v1/files/{id}/complete`).
   */
  upload: z
    .union([
      z.object({
        url: z.string(),
        method: z.literal("PUT"),
        headers: z.record(z.string(), z.string()),
        expiresAt: timestamp,
      }),
      z.object({
        method: z.literal("multipart"),
        partSizeBytes: z.number().int(),
        partCount: z.number().int(),
        headers: z.record(z.string(), z.string()),
      }),
    ])
    .optional(),
});
export const assetListSchema = z.object({
  data: z.array(assetSchema.omit({ upload: true })),
  nextCursor: z.string().nullable(),
});

const presignedPut = z.object({ url: z.string(), method: z.literal("PUT"), expiresAt: timestamp });
export const partUrlsSchema = z.object({ parts: z.array(presignedPut.extend({ partNumber: z.number().int() })) });
