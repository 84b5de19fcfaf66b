import type { Services } from "../services.ts";
import { assetPrefix } from "../storage/delete-objects.ts";
import { READ_BY_UNFINISHED_JOB } from "../storage/asset-store.ts";
import { reclaimNow, reclaimStatement } from "../storage/object-reclaims.ts";

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
    // An asset a queued or running job still reads waits for that job (the next run looks again).
    .prepare(
      `SELECT a.id, a.object_key FROM assets a
       WHERE a.expired_at IS NULL AND a.expires_at IS NOT NULL AND a.expires_at <= ?1
         AND NOT ${READ_BY_UNFINISHED_JOB}
       ORDER BY a.expires_at LIMIT ?2`,
    )
    .bind(now, EXPIRE_BATCH)
    .all<{ id: string; object_key: string }>();
  if (results.length) {
    const prefixes = results.map(assetPrefix);
    await s.db.batch([
      ...results.map((a) =>
        s.db.prepare("UPDATE assets SET expired_at = ?2 WHERE id = ?1 AND expired_at IS NULL").bind(a.id, now),
      ),
      ...prefixes.map((p) => reclaimStatement(s.db, p, now)),
    ]);
    await reclaimNow(s.db, bucket, prefixes, now);
  }
  if (results.length) console.warn(`retention: deleted the bytes of ${results.length} expired file(s)`);
  return results.length;
}
