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
};

export async function insertUploadAsset(
  db: D1Database,
  a: { id: string; accountId: string; fileName: string; contentType: string; size: number | null; objectKey: string; now: string },
): Promise<void> {
  await db
    .prepare(
      `INSERT INTO assets (id, account_id, origin, file_name, content_type, size, status, object_key, created_at)
       VALUES (?1, ?2, 'upload', ?3, ?4, ?5, 'pending', ?6, ?7)`,
    )
    .bind(a.id, a.accountId, a.fileName, a.contentType, a.size, a.objectKey, a.now)
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
