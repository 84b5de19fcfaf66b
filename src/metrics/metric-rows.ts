import type { ContainerStart } from "../runner/runner-client.ts";
import { bucketOf, NO_BUCKET } from "./histogram.ts";

/**
 * What the operator metrics count, per hour and account (metric_rollups): each is a count (and a sum
 * in `total`) by label, or a distribution by histogram bucket (histogram.ts).
 */
export const METRIC_NAMES = [
  "jobs", // label: the terminal status
  "job_errors", // label: the error code
  "queue_wait_ms", // created → started, of jobs that started
  "run_ms", // started → finished
  "credits",
  "bytes_in", // fetched from inputs' origins
  "bytes_out", // outputs stored and sent to destinations
  "container_starts", // label: cold | warm
  "webhook_attempts", // label: delivered | retrying | failed
] as const;
export type MetricName = (typeof METRIC_NAMES)[number];

/** As long as Analytics Engine keeps its points (three months): the rollups' age limit and the longest period asked for. */
export const METRICS_RETENTION_DAYS = 92;

export type MetricRow = { metric: MetricName; label: string; bucket: number; count: number; total: number };

/** A finished job as the metrics see it. */
export type FinishedJobFacts = {
  accountId: string;
  status: string;
  errorCode: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string;
  credits: number;
  bytesIn: number;
  bytesOut: number;
  containerStart: ContainerStart | null;
};

export function jobMetricRows(f: FinishedJobFacts): MetricRow[] {
  const counted = (metric: MetricName, label: string, total = 0): MetricRow => ({
    metric,
    label,
    bucket: NO_BUCKET,
    count: 1,
    total,
  });
  const timed = (metric: MetricName, ms: number): MetricRow => ({
    metric,
    label: "",
    bucket: bucketOf(ms),
    count: 1,
    total: ms,
  });
  const rows = [
    counted("jobs", f.status),
    counted("credits", "", f.credits),
    counted("bytes_in", "", f.bytesIn),
    counted("bytes_out", "", f.bytesOut),
  ];
  if (f.errorCode) rows.push(counted("job_errors", f.errorCode));
  if (f.startedAt) {
    rows.push(
      timed("queue_wait_ms", msBetween(f.createdAt, f.startedAt)),
      timed("run_ms", msBetween(f.startedAt, f.finishedAt)),
    );
  }
  if (f.containerStart) rows.push(counted("container_starts", f.containerStart));
  return rows;
}

export type WebhookOutcome = "delivered" | "retrying" | "failed";

export function webhookMetricRows(outcome: WebhookOutcome, latencyMs: number): MetricRow[] {
  return [{ metric: "webhook_attempts", label: outcome, bucket: NO_BUCKET, count: 1, total: latencyMs }];
}

function msBetween(from: string, to: string): number {
  return Math.max(0, Date.parse(to) - Date.parse(from));
}

/** The rollup's hour of an ISO time: "2026-11-25T09". */
export function hourOf(iso: string): string {
  return iso.slice(0, 13);
}
