import type { CreateJobRequest } from "../../api/schemas/job-request.ts";
import { getAssets, refreshUploadStatus } from "../../storage/asset-store.ts";
import type { JobSpec, RequestIssue } from "./job-request.ts";

/** Asset inputs must be this account's uploads, with their bytes in storage. */
export async function checkAssetInputs(
  db: D1Database,
  bucket: R2Bucket,
  accountId: string,
  req: CreateJobRequest,
  spec: JobSpec,
): Promise<RequestIssue[]> {
  const wanted = Object.entries(spec.inputs).flatMap(([name, i]) =>
    i.type === "asset" ? [{ name, assetId: i.assetId }] : [],
  );
  const owned = new Map(
    (
      await getAssets(
        db,
        wanted.map((a) => a.assetId),
        accountId,
      )
    ).map((a) => [a.id, a]),
  );
  const issues: RequestIssue[] = [];
  for (const { name, assetId } of wanted) {
    const path = req.input ? ["input", name.slice("input".length), "assetId"] : ["inputs", name, "assetId"];
    const asset = owned.get(assetId);
    if (!asset) issues.push({ path, message: `asset ${assetId} does not exist` });
    else if (asset.expired_at)
      issues.push({ path, message: `asset ${assetId} has expired (retention deleted its bytes): upload it again` });
    else if ((await refreshUploadStatus(db, bucket, asset)).status !== "ready") {
      issues.push({ path, message: `asset ${assetId} is not ready: upload its bytes first` });
    }
  }
  return issues;
}
