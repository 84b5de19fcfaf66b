import { recordFinishedJob, uncountedJobIds } from "../metrics/metric-store.ts";
import { hourOf, METRICS_RETENTION_DAYS } from "../metrics/metric-rows.ts";
import type { Services } from "../services.ts";

/** Per cron run: a burst of lost counts is caught up over a few minutes, within the run's D1 budget. */
const UNCOUNTED_JOBS_PER_RUN = 50;

/** Counts finished jobs whose end was not counted (the Worker died between the end and its count). */
export async function countUncountedJobs(s: Services): Promise<void> {
  for (const id of await uncountedJobIds(s.db, UNCOUNTED_JOBS_PER_RUN)) await recordFinishedJob(s.db, id, s.metrics);
}

export async function expireMetrics(s: Services): Promise<void> {
  const before = hourOf(new Date(s.now().getTime() - METRICS_RETENTION_DAYS * 86_400_000).toISOString());
  await s.db.prepare("DELETE FROM metric_rollups WHERE hour < ?1").bind(before).run();
}
