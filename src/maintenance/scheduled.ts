import type { Services } from "../services.ts";
import { deleteExpiredKeys } from "../storage/idempotency-store.ts";
import { sweepStalled } from "./sweep-stalled.ts";

/** What the cron trigger does each run: re-send stalled work, and drop what has expired. */
export async function runScheduled(s: Services): Promise<void> {
  await sweepStalled(s);
  await deleteExpiredKeys(s.db, s.now());
}
