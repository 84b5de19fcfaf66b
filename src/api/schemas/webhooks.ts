import { z } from "zod";
import { httpUrl, pageQuery, timestamp, uuid } from "./common.ts";

/** Webhooks: the URL a job's events go to, the signing secret, a test send and the delivery log. */

// zod runs every refinement even after one failed, so each must be safe on any string.
export const webhookUrlSchema = httpUrl.refine(
  (v) => !URL.canParse(v) || (!new URL(v).username && !new URL(v).password),
  "must not contain credentials",
);

export const webhookTestSchema = z.object({ url: webhookUrlSchema }).strict();

export const listDeliveriesQuerySchema = z.object({ ...pageQuery, jobId: uuid.optional() }).strict();

export const webhookSecretSchema = z.object({
  secret: z.string(),
  createdAt: timestamp,
  previousSecretExpiresAt: timestamp.nullable(),
});

export const webhookTestResultSchema = z.object({
  ok: z.boolean(),
  status: z.number().int(),
  deliveryId: uuid,
  secretPreview: z.string(),
  error: z.string().optional(),
});

export const deliverySchema = z.object({
  id: uuid,
  eventId: z.string(),
  eventType: z.string(),
  jobId: uuid.nullable(),
  url: z.string(),
  status: z.enum(["pending", "succeeded", "failed"]),
  attemptCount: z.number().int(),
  createdAt: timestamp,
  updatedAt: timestamp,
  attempts: z.array(
    z.object({
      attemptedAt: timestamp,
      httpStatus: z.number().int().nullable(),
      errorKind: z.string().nullable(),
      error: z.string().nullable(),
      latencyMs: z.number().int(),
    }),
  ),
});
