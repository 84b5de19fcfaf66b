import { idempotent } from "../idempotency.ts";
import { Hono } from "hono";
import type { AppEnv } from "../app-env.ts";
import { ApiError } from "../api-error.ts";
import { createFileSchema, idParamSchema } from "../schemas.ts";
import { requireJsonBody, validate } from "../validation.ts";
import { getAsset, insertUploadAsset, refreshUploadStatus, type AssetRow } from "../../storage/asset-store.ts";
import { createPresigner, objectKeys } from "../../storage/presigner.ts";
import { UPLOAD_URL_TTL_SECONDS } from "../../jobs/limits.ts";
import { loadConfig } from "../../config.ts";

export const fileRoutes = new Hono<AppEnv>();

function assetView(a: Pick<AssetRow, "id" | "file_name" | "content_type" | "size" | "status" | "created_at">) {
  return { id: a.id, fileName: a.file_name, contentType: a.content_type, size: a.size, status: a.status, createdAt: a.created_at };
}

/** Creates an upload slot: the client PUTs the bytes straight to storage with the presigned URL. */
fileRoutes.post("/", requireJsonBody, idempotent("files.create"), validate("json", createFileSchema), async (c) => {
  const body = c.req.valid("json");
  const id = crypto.randomUUID();
  const objectKey = objectKeys.upload(id, body.fileName);
  const now = new Date().toISOString();
  await insertUploadAsset(c.env.DB, {
    id, accountId: c.get("account").id, fileName: body.fileName, contentType: body.contentType, size: body.size ?? null, objectKey, now,
  });
  const upload = await createPresigner(loadConfig(c.env).storage).presign("PUT", objectKey, UPLOAD_URL_TTL_SECONDS);
  const asset = assetView({ id, file_name: body.fileName, content_type: body.contentType, size: body.size ?? null, status: "pending", created_at: now });
  return c.json(
    { ...asset, upload: { url: upload.url, method: "PUT" as const, headers: { "Content-Type": body.contentType }, expiresAt: upload.expiresAt } },
    201,
  );
});

fileRoutes.get("/:id", validate("param", idParamSchema), async (c) => {
  const asset = await getAsset(c.env.DB, c.req.valid("param").id, c.get("account").id);
  if (!asset) throw new ApiError("NOT_FOUND", "No file with this id");
  return c.json(assetView(await refreshUploadStatus(c.env.DB, c.env.BUCKET, asset)));
});
