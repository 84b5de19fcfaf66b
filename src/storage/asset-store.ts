import { keysetPage, type Cursor } from "./keyset-page.ts";

export type AssetRow = {
  id: string;
  account_id: string;
  origin: "upload" | "output";
  job_id: string | null;
  file_name: string;
  content_type: string;
  size: number | null;
  status: "pending" | "ready";
  object_key: string;
  created_at: string;
  /** When retention deletes its bytes. */
  expires_at: string | null;
  /** When its bytes were deleted (retention); the record stays, as `expired`. */
  expired_at: string | null;
  /** A pending upload filled in parts: its S3 multipart upload, and the size of its parts. */
  multipart_upload_id?: string | null;
  part_size?: number | null;
};

export async function insertUploadAsset(
  db: D1Database,
  a: {
    id: string;
    accountId: string;
    fileName: string;
    contentType: string;
    size: number | null;
    objectKey: string;
    now: string;
    expiresAt: string;
    multipart?: { uploadId: string; partSize: number };
  },
): Promise<void> {
  await db
    .prepare(
      `INSERT INTO assets (id, account_id, origin, file_name, content_type, size, status, object_key, created_at, expires_at, multipart_upload_id, part_size)
       VALUES (?1, ?2, 'upload', ?3, ?4, ?5, 'pending', ?6, ?7, ?8, ?9, ?10)`,
    )
    .bind(
      a.id,
      a.accountId,
      a.fileName,
      a.contentType,
      a.size,
      a.objectKey,
      a.now,
      a.expiresAt,
      a.multipart?.uploadId ?? null,
      a.multipart?.partSize ?? null,
    )
    .run();
}

export async function getAsset(db: D1Database, id: string, accountId: string): Promise<AssetRow | null> {
  return db.prepare("SELECT * FROM assets WHERE id = ?1 AND account_id = ?2").bind(id, accountId).first<AssetRow>();
}

export async function getAssets(db: D1Database, ids: string[], accountId: string): Promise<AssetRow[]> {
  if (ids.length === 0) return [];
  const marks = ids.map((_, i) => `?${i + 2}`).join(", ");
  const { results } = await db
    .prepare(`SELECT * FROM assets WHERE account_id = ?1 AND id IN (${marks})`)
    .bind(accountId, ...ids)
    .all<AssetRow>();
  return results;
}

/**
 * A pending upload becomes ready once its bytes are in the bucket. Checked on read, so no upload
 * callback is needed; the guard keeps the first observed size.
 */
export async function refreshUploadStatus(db: D1Database, bucket: R2Bucket, asset: AssetRow): Promise<AssetRow> {
  if (asset.status === "ready") return asset;
  const head = await bucket.head(asset.object_key);
  if (!head) return asset;
  await db
    .prepare("UPDATE assets SET status = 'ready', size = ?2 WHERE id = ?1 AND status = 'pending'")
    .bind(asset.id, head.size)
    .run();
  return { ...asset, status: "ready", size: head.size };
}

/** A multipart upload that storage completed: the file is ready, at its real size. */
export async function markUploadComplete(db: D1Database, id: string, size: number): Promise<void> {
  await db
    .prepare(
      "UPDATE assets SET status = 'ready', size = ?2, multipart_upload_id = NULL WHERE id = ?1 AND status = 'pending'",
    )
    .bind(id, size)
    .run();
}

/** What a file list shows of each file (`GET /v1/files`): every column is small, but a page reads only these. */
const ASSET_LIST_COLUMNS = [
  "id",
  "origin",
  "job_id",
  "file_name",
  "content_type",
  "size",
  "status",
  "created_at",
  "expires_at",
  "expired_at",
] as const;
export type ListedAsset = Pick<AssetRow, (typeof ASSET_LIST_COLUMNS)[number]>;

/** An account's files, newest first (keyset pages); `origin` narrows to uploads or outputs. */
export function listAssets(
  db: D1Database,
  accountId: string,
  q: { limit: number; cursor?: Cursor; origin?: "upload" | "output" },
) {
  const filters: [string, unknown][] = [["account_id", accountId]];
  if (q.origin) filters.push(["origin", q.origin]);
  return keysetPage<ListedAsset>(db, {
    table: "assets",
    columns: ASSET_LIST_COLUMNS,
    filters,
    limit: q.limit,
    cursor: q.cursor,
  });
}

/**
 * SQL: a queued or running job of the asset's account names the asset `a` as an input (its stored
 * request holds `"assetId":"<id>"`). Deleting or expiring such a file would fail that job.
 */
export const READ_BY_UNFINISHED_JOB = `EXISTS (SELECT 1 FROM jobs j WHERE j.account_id = a.account_id AND j.status IN ('queued', 'running')
  AND instr(j.request_json, '"assetId":"' || a.id || '"') > 0)`;

export async function isInputOfActiveJob(db: D1Database, accountId: string, assetId: string): Promise<boolean> {
  const row = await db
    .prepare(`SELECT 1 AS x FROM assets a WHERE a.id = ?1 AND a.account_id = ?2 AND ${READ_BY_UNFINISHED_JOB}`)
    .bind(assetId, accountId)
    .first();
  return row !== null;
}
