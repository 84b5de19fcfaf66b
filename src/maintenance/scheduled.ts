import type { Services } from "../services.ts";
import { deleteExpiredKeys } from "../storage/idempotency-store.ts";
import { sweepStalled } from "./sweep-stalled.ts";
import { expireAssets } from "./expire-assets.ts";
import { reclaimDue } from "../storage/object-reclaims.ts";
import { countUncountedJobs, expireMetrics } from "./sweep-metrics.ts";
import { abortLeftUploads } from "./abort-left-uploads.ts";
import { deleteExpiredCalls } from "../mcp/mcp-calls.ts";

/**
 * What the cron trigger does each run: re-send stalled work, count jobs whose end was not counted, drop
 * what has expired, delete bytes no record points at any more (src/storage/object-reclaims.ts), and
 * abort output uploads a runner left behind (abort-left-uploads.ts).
 */
export async function runScheduled(s: Services, bucket: R2Bucket): Promise<void> {
  await sweepStalled(s);
  await deleteExpiredKeys(s.db, s.now());
  await deleteExpiredCalls(s.db, s.now());
  await expireAssets(s, bucket);
  await reclaimDue(s.db, bucket, s.now().toISOString());
  await abortLeftUploads(s.db, bucket);
  await countUncountedJobs(s);
  await expireMetrics(s);
}
