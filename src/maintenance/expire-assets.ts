import type { Services } from "../services.ts";
import { assetPrefix, deletePrefix } from "../storage/delete-objects.ts";

/** Assets handled per scheduled run: bounded work per invocation; the rest wait for the next run. */
const EXPIRE_BATCH = 200;

/**
 * Retention: deletes the bytes of uploads and outputs past their `expires_at` and marks them
 * expired (the guarded update makes a second run change nothing). Expired outputs drop out of their
 * job's `outputs`; the asset record stays, with status `expired`.
 */
export async function expireAssets(s: Services, bucket: R2Bucket): Promise<number> {
  const now = s.now().toISOString();
  const { results } = await s.db
    .prepare("SELECT id, object_key FROM assets WHERE expired_at IS NULL AND expires_at IS NOT NULL AND expires_at <= ?1 ORDER BY expires_at LIMIT ?2")
    .bind(now, EXPIRE_BATCH)
    .all<{ id: string; object_key: string }>();
  for (const asset of results) {
    await deletePrefix(bucket, assetPrefix(asset));
    await s.db.prepare("UPDATE assets SET expired_at = ?2 WHERE id = ?1 AND expired_at IS NULL").bind(asset.id, now).run();
  }
  if (results.length) console.warn(`retention: deleted the bytes of ${results.length} expired file(s)`);
  return results.length;
}
