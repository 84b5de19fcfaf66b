import { assetPrefix } from "./delete-objects.ts";
import type { AssetRow } from "./asset-store.ts";
import { abortMultipart } from "./multipart-upload.ts";
import { reclaimNow, reclaimStatement } from "./object-reclaims.ts";
import { WORK_PREFIX } from "./presigner.ts";
import { holdUploadKey, uploadUrlWritableUntil } from "./upload-once.ts";
import { finishedJobDeletes } from "../jobs/store/job-store.ts";

/**
 * Deletes an asset: its records first (an output also leaves its job's outputs), in one batch that
 * queues its folder for reclaim, then its bytes (the whole folder: a directory output's files too;
 * an upload's parts in progress). A failure after the batch leaves bytes no record points at, which
 * the scheduled sweep deletes (src/storage/object-reclaims.ts), never a record without bytes. An
 * upload whose URL could still write gets a placeholder at its key until then.
 */
export async function deleteAsset(db: D1Database, bucket: R2Bucket, asset: AssetRow, now = new Date()): Promise<void> {
  const at = now.toISOString();
  const prefix = assetPrefix(asset);
  // An upload URL that may still write keeps the folder queued until it expires (src/storage/upload-once.ts).
  const writableUntil = uploadUrlWritableUntil(asset);
  const holdKey = writableUntil !== null && writableUntil > now.getTime();
  await db.batch([
    reclaimStatement(db, prefix, holdKey ? new Date(writableUntil).toISOString() : at),
    db.prepare("DELETE FROM job_outputs WHERE asset_id = ?1").bind(asset.id),
    db.prepare("DELETE FROM assets WHERE id = ?1").bind(asset.id),
  ]);
  await abortMultipart(bucket, asset);
  await reclaimNow(db, bucket, [prefix], at);
  if (holdKey) await holdUploadKey(bucket, asset.object_key);
}

/**
 * Deletes a finished job: in one batch its rows (split tasks, outputs' records, then the job) and the
 * queueing of its folders for reclaim; then the bytes (everything under `outputs/<job>/`, and a split
 * job's work files). The delivery log keeps its entries (they say what was sent). False if the job
 * was not finished (then nothing changed).
 */
export async function deleteFinishedJob(
  db: D1Database,
  bucket: R2Bucket,
  jobId: string,
  now = new Date(),
): Promise<boolean> {
  const at = now.toISOString();
  const prefixes = [`outputs/${jobId}/`, `${WORK_PREFIX}${jobId}/`];
  const rows = finishedJobDeletes(db, jobId);
  const results = await db.batch([...prefixes.map((p) => reclaimStatement(db, p, at, rows.guard)), ...rows.statements]);
  if (results.at(-1)?.meta.changes !== 1) return false;
  await reclaimNow(db, bucket, prefixes, at);
  return true;
}
