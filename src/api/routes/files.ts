import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { IDEMPOTENCY_KEY_HEADER, idempotent } from "../idempotency.ts";
import type { AppEnv } from "../app-env.ts";
import { ApiError, invalidRequest, unknownCursor } from "../api-error.ts";
import { idParamSchema } from "../schemas/common.ts";
import {
  completeUploadSchema,
  createFileSchema,
  listFilesQuerySchema,
  partUrlsRequestSchema,
} from "../schemas/files.ts";
import { operation, serveOperations } from "../operation.ts";
import { errors, json, jsonBody } from "../openapi-responses.ts";
import {
  getAsset,
  insertUploadAsset,
  isInputOfActiveJob,
  listAssets as readAssets,
  markUploadComplete,
  refreshUploadStatus,
  type AssetRow,
  type ListedAsset,
} from "../../storage/asset-store.ts";
import {
  completeMultipart,
  partPlan,
  partUrls,
  pendingMultipart,
  renewMultipart,
  startMultipart,
} from "../../storage/multipart-upload.ts";
import { createPresigner, objectKeys } from "../../storage/presigner.ts";
import { contentTypeFor } from "../../storage/content-types.ts";
import { decodeCursor } from "../../storage/keyset-page.ts";
import { deleteAsset } from "../../storage/delete-asset.ts";
import { WRITE_ONCE_HEADERS } from "../../storage/upload-once.ts";
import { UPLOAD_URL_TTL_SECONDS } from "../../jobs/request/limits.ts";
import { loadConfig } from "../../config.ts";

function assetView(a: ListedAsset) {
  return {
    id: a.id,
    fileName: a.file_name,
    contentType: a.content_type,
    size: a.size,
    status: a.expired_at ? ("expired" as const) : a.status,
    origin: a.origin,
    jobId: a.job_id,
    createdAt: a.created_at,
    expiresAt: a.expires_at,
  };
}

/**
 * Creates an upload slot: the client PUTs the bytes straight to storage with the presigned URL, or for
 * a multipart upload PUTs each part with URLs from `/{id}/parts` and then calls `/{id}/complete`.
 */
const createFile = operation(
  createRoute({
    method: "post",
    path: "/",
    operationId: "createFile",
    summary: "Create an upload slot",
    parameters: [IDEMPOTENCY_KEY_HEADER],
    request: { body: jsonBody(createFileSchema) },
    middleware: [idempotent("files.create")],
    responses: {
      201: json("Asset", "The asset with its upload URL"),
      ...errors({
        400: ["INVALID_REQUEST"],
        409: ["IDEMPOTENCY_KEY_REUSED", "IDEMPOTENCY_KEY_IN_USE"],
        413: ["PAYLOAD_TOO_LARGE"],
      }),
    },
  }),
  async (c) => {
    const body = c.req.valid("json");
    const config = loadConfig(c.env);
    const contentType = body.contentType ?? contentTypeFor(body.fileName);
    const id = crypto.randomUUID();
    const objectKey = objectKeys.upload(id, body.fileName);
    const now = new Date();
    const row: AssetRow = {
      id,
      account_id: c.get("account").id,
      origin: "upload",
      job_id: null,
      file_name: body.fileName,
      content_type: contentType,
      size: body.size ?? null,
      status: "pending",
      object_key: objectKey,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + config.uploadRetentionMs).toISOString(),
      expired_at: null,
    };
    const asset = {
      id,
      accountId: row.account_id,
      fileName: row.file_name,
      contentType,
      size: row.size,
      objectKey,
      now: row.created_at,
      expiresAt: row.expires_at!,
    };
    if (body.multipart) {
      const plan = partPlan(body.size!, body.partSizeBytes);
      const uploadId = await startMultipart(c.env.BUCKET, objectKey, contentType);
      await insertUploadAsset(c.env.DB, { ...asset, multipart: { uploadId, partSize: plan.partSizeBytes } });
      return c.json({ ...assetView(row), upload: { method: "multipart" as const, ...plan, headers: {} } }, 201);
    }
    await insertUploadAsset(c.env.DB, asset);
    const upload = await createPresigner(config.storage).presign("PUT", objectKey, UPLOAD_URL_TTL_SECONDS, {
      headers: WRITE_ONCE_HEADERS,
    });
    return c.json(
      {
        ...assetView(row),
        upload: {
          url: upload.url,
          method: "PUT" as const,
          headers: { "Content-Type": contentType, ...WRITE_ONCE_HEADERS },
          expiresAt: upload.expiresAt,
        },
      },
      201,
    );
  },
);

/** The multipart upload in progress of one of the account's files, or the reason there is none. */
async function uploadInProgress(c: Context<AppEnv>, id: string) {
  const asset = await getAsset(c.env.DB, id, c.get("account").id);
  if (!asset) throw new ApiError("NOT_FOUND", "No file with this id");
  const upload = pendingMultipart(asset);
  if (!upload)
    throw new ApiError(
      "UPLOAD_NOT_IN_PROGRESS",
      asset.status === "ready" ? "This file's upload is complete" : "This file is uploaded with one PUT, not in parts",
    );
  return { asset, upload };
}

/** Presigned PUT URLs for parts of a multipart upload: the first time, or again for a part that failed. */
const getUploadPartUrls = operation(
  createRoute({
    method: "post",
    path: "/{id}/parts",
    operationId: "getUploadPartUrls",
    summary: "Presigned PUT URLs for parts of a multipart upload (again for a part that failed)",
    request: { params: idParamSchema, body: jsonBody(partUrlsRequestSchema) },
    responses: {
      200: json("PartUrls", "The parts' URLs"),
      ...errors({ 400: ["INVALID_REQUEST"], 404: ["NOT_FOUND"], 409: ["UPLOAD_NOT_IN_PROGRESS"] }),
    },
  }),
  async (c) => {
    const { upload } = await uploadInProgress(c, c.req.valid("param").id);
    const got = await partUrls(createPresigner(loadConfig(c.env).storage), upload, c.req.valid("json").partNumbers);
    if ("problem" in got) throw invalidRequest([{ path: ["partNumbers"], message: got.problem, code: "custom" }]);
    return c.json({ parts: got.urls });
  },
);

/** Completes a multipart upload from its parts' ETags; the file is then ready. */
const completeUpload = operation(
  createRoute({
    method: "post",
    path: "/{id}/complete",
    operationId: "completeUpload",
    summary: "Complete a multipart upload from its parts' ETags; the file is then ready",
    request: { params: idParamSchema, body: jsonBody(completeUploadSchema) },
    responses: {
      200: json("Asset", "The uploaded file"),
      ...errors({ 400: ["INVALID_REQUEST"], 404: ["NOT_FOUND"], 409: ["UPLOAD_NOT_IN_PROGRESS"] }),
    },
  }),
  async (c) => {
    const { asset, upload } = await uploadInProgress(c, c.req.valid("param").id);
    const done = await completeMultipart(c.env.BUCKET, upload, c.req.valid("json").parts);
    if ("problem" in done) {
      if (done.spent) await renewMultipart(c.env.BUCKET, c.env.DB, upload);
      throw invalidRequest([{ path: ["parts"], message: done.problem, code: "custom" }]);
    }
    await markUploadComplete(c.env.DB, asset.id, done.size);
    return c.json(assetView({ ...asset, status: "ready", size: done.size }));
  },
);

const listFiles = operation(
  createRoute({
    method: "get",
    path: "/",
    operationId: "listFiles",
    summary: "The account's files (uploads and job outputs), newest first",
    request: { query: listFilesQuerySchema },
    responses: { 200: json("AssetList", "A page of files"), ...errors({ 400: ["INVALID_REQUEST"] }) },
  }),
  async (c) => {
    const q = c.req.valid("query");
    const cursor = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
    if (cursor === null) throw unknownCursor();
    const page = await readAssets(c.env.DB, c.get("account").id, { limit: q.limit, cursor, origin: q.origin });
    return c.json({ data: page.rows.map(assetView), nextCursor: page.nextCursor });
  },
);

const getFile = operation(
  createRoute({
    method: "get",
    path: "/{id}",
    operationId: "getFile",
    summary: "Get an asset",
    request: { params: idParamSchema },
    responses: { 200: json("Asset", "The asset"), ...errors({ 400: ["INVALID_REQUEST"], 404: ["NOT_FOUND"] }) },
  }),
  async (c) => {
    const asset = await getAsset(c.env.DB, c.req.valid("param").id, c.get("account").id);
    if (!asset) throw new ApiError("NOT_FOUND", "No file with this id");
    return c.json(assetView(await refreshUploadStatus(c.env.DB, c.env.BUCKET, asset)));
  },
);

/** Deletes a file's bytes and record now (an output also leaves its job's outputs); 204. */
const deleteFile = operation(
  createRoute({
    method: "delete",
    path: "/{id}",
    operationId: "deleteFile",
    summary: "Delete a file's bytes and record now (an output also leaves its job) (204)",
    request: { params: idParamSchema },
    responses: {
      204: { description: "Deleted" },
      ...errors({ 400: ["INVALID_REQUEST"], 404: ["NOT_FOUND"], 409: ["FILE_IN_USE"] }),
    },
  }),
  async (c) => {
    const accountId = c.get("account").id;
    const asset = await getAsset(c.env.DB, c.req.valid("param").id, accountId);
    if (!asset) throw new ApiError("NOT_FOUND", "No file with this id");
    if (await isInputOfActiveJob(c.env.DB, accountId, asset.id)) {
      throw new ApiError(
        "FILE_IN_USE",
        "A job that has not finished uses this file as an input; cancel it or wait for it to end",
      );
    }
    await deleteAsset(c.env.DB, c.env.BUCKET, asset);
    return c.body(null, 204);
  },
);

export const fileRoutes = new OpenAPIHono<AppEnv>();
serveOperations(fileRoutes, createFile, listFiles, getFile, deleteFile, getUploadPartUrls, completeUpload);
