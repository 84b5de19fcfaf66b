import { assetPrefix, deletePrefix } from "./delete-objects.ts";
import type { AssetRow } from "./asset-store.ts";
import { abortMultipart } from "./multipart-upload.ts";

/** Deletes an asset's bytes (its whole folder: a directory output's files too; an upload's parts in progress), then its records. */
export async function deleteAsset(db: D1Database, bucket: R2Bucket, asset: AssetRow): Promise<void> {
  await abortMultipart(bucket, asset);
  await deletePrefix(bucket, assetPrefix(asset));
  await db.batch([
    db.prepare("DELETE FROM job_outputs WHERE asset_id = ?1").bind(asset.id),
    db.prepare("DELETE FROM assets WHERE id = ?1").bind(asset.id),
  ]);
}

/**
 * Deletes a finished job: its outputs' bytes (everything under `outputs/<job>/`) and records, then the
 * job. The delivery log keeps its entries (they say what was sent).
 */
export async function deleteFinishedJob(db: D1Database, bucket: R2Bucket, jobId: string): Promise<void> {
  await deletePrefix(bucket, `outputs/${jobId}/`);
  await db.batch([
    db.prepare("DELETE FROM job_outputs WHERE job_id = ?1").bind(jobId),
    db.prepare("DELETE FROM assets WHERE job_id = ?1 AND origin = 'output'").bind(jobId),
    db.prepare("DELETE FROM jobs WHERE id = ?1 AND status IN ('completed', 'failed', 'canceled', 'rejected')").bind(jobId),
  ]);
}
