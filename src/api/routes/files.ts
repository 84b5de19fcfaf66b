import { Hono } from "hono";
import { idempotent } from "../idempotency.ts";
import type { AppEnv } from "../app-env.ts";
import { ApiError, invalidRequest } from "../api-error.ts";
import { createFileSchema, idParamSchema, listFilesQuerySchema } from "../schemas.ts";
import { requireJsonBody, validate } from "../validation.ts";
import { getAsset, insertUploadAsset, isInputOfActiveJob, listAssets, refreshUploadStatus, type AssetRow } from "../../storage/asset-store.ts";
import { createPresigner, objectKeys } from "../../storage/presigner.ts";
import { contentTypeFor } from "../../storage/content-types.ts";
import { decodeCursor } from "../../storage/keyset-page.ts";
import { deleteAsset } from "../../storage/delete-asset.ts";
import { UPLOAD_URL_TTL_SECONDS } from "../../jobs/limits.ts";
import { loadConfig } from "../../config.ts";

export const fileRoutes = new Hono<AppEnv>();

function assetView(a: AssetRow) {
  return {
    id: a.id, fileName: a.file_name, contentType: a.content_type, size: a.size, status: a.expired_at ? ("expired" as const) : a.status,
    origin: a.origin, jobId: a.job_id, createdAt: a.created_at, expiresAt: a.expires_at,
  };
}

/** Creates an upload slot: the client PUTs the bytes straight to storage with the presigned URL. */
fileRoutes.post("/", requireJsonBody, idempotent("files.create"), validate("json", createFileSchema), async (c) => {
  const body = c.req.valid("json");
  const config = loadConfig(c.env);
  const contentType = body.contentType ?? contentTypeFor(body.fileName);
  const id = crypto.randomUUID();
  const objectKey = objectKeys.upload(id, body.fileName);
  const now = new Date();
  const row: AssetRow = {
    id, account_id: c.get("account").id, origin: "upload", job_id: null, file_name: body.fileName, content_type: contentType, size: body.size ?? null,
    status: "pending", object_key: objectKey, created_at: now.toISOString(), expires_at: new Date(now.getTime() + config.uploadRetentionMs).toISOString(), expired_at: null,
  };
  await insertUploadAsset(c.env.DB, { id, accountId: row.account_id, fileName: row.file_name, contentType, size: row.size, objectKey, now: row.created_at, expiresAt: row.expires_at! });
  const upload = await createPresigner(config.storage).presign("PUT", objectKey, UPLOAD_URL_TTL_SECONDS);
  return c.json({ ...assetView(row), upload: { url: upload.url, method: "PUT" as const, headers: { "Content-Type": contentType }, expiresAt: upload.expiresAt } }, 201);
});

fileRoutes.get("/", validate("query", listFilesQuerySchema), async (c) => {
  const q = c.req.valid("query");
  const cursor = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
  if (cursor === null) throw invalidRequest([{ path: ["cursor"], message: "unknown cursor: pass nextCursor as given", code: "custom" }]);
  const page = await listAssets(c.env.DB, c.get("account").id, { limit: q.limit, cursor, origin: q.origin });
  return c.json({ data: page.rows.map(assetView), nextCursor: page.nextCursor });
});

fileRoutes.get("/:id", validate("param", idParamSchema), async (c) => {
  const asset = await getAsset(c.env.DB, c.req.valid("param").id, c.get("account").id);
  if (!asset) throw new ApiError("NOT_FOUND", "No file with this id");
  return c.json(assetView(await refreshUploadStatus(c.env.DB, c.env.BUCKET, asset)));
});

/** Deletes a file's bytes and record now (an output also leaves its job's outputs); 204. */
fileRoutes.delete("/:id", validate("param", idParamSchema), async (c) => {
  const accountId = c.get("account").id;
  const asset = await getAsset(c.env.DB, c.req.valid("param").id, accountId);
  if (!asset) throw new ApiError("NOT_FOUND", "No file with this id");
  if (await isInputOfActiveJob(c.env.DB, accountId, asset.id)) {
    throw new ApiError("FILE_IN_USE", "A job that has not finished uses this file as an input; cancel it or wait for it to end");
  }
  await deleteAsset(c.env.DB, c.env.BUCKET, asset);
  return c.body(null, 204);
});
