import type { Services } from "../services.ts";
import { deleteExpiredKeys } from "../storage/idempotency-store.ts";
import { sweepStalled } from "./sweep-stalled.ts";
import { expireAssets } from "./expire-assets.ts";
import { countUncountedJobs, expireMetrics } from "./sweep-metrics.ts";

/** What the cron trigger does each run: re-send stalled work, count jobs whose end was not counted, and drop what has expired. */
export async function runScheduled(s: Services, bucket: R2Bucket): Promise<void> {
  await sweepStalled(s);
  await deleteExpiredKeys(s.db, s.now());
  await expireAssets(s, bucket);
  await countUncountedJobs(s);
  await expireMetrics(s);
}
