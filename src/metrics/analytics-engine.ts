import type { FinishedJobFacts, WebhookOutcome } from "./metric-rows.ts";

/**
 * Where each metric event goes besides the rollups: in production, Workers Analytics Engine (the
 * METRICS dataset, `ffjobs_metrics`), one data point per finished job and per webhook attempt, kept
 * three months, for an operator's own SQL API or Grafana queries by any dimension (docs/deploy.md, "Metrics"
 * has the layout and example queries). Locally the binding is miniflare's simulator, which takes the
 * points and keeps none: the rollups are the local sink, and what GET /v1/admin/metrics reads
 * everywhere (exact, where Analytics Engine samples at volume and is read only with an API token).
 */
export type MetricsSink = {
  jobEnded(facts: FinishedJobFacts): void;
  webhookAttempt(accountId: string, outcome: WebhookOutcome, latencyMs: number): void;
};

/**
 * What Analytics Engine accepts (developers.cloudflare.com/analytics/analytics-engine/limits/): at
 * most 20 blobs and 20 doubles, one index of at most 96 bytes, 16 KB of blobs in a point, and 250
 * points per Worker invocation. A point past them would be dropped there; here it throws, so a test
 * sees it.
 */
export const ANALYTICS_ENGINE_LIMITS = {
  blobs: 20,
  doubles: 20,
  indexBytes: 96,
  blobBytes: 16 * 1024,
  pointsPerInvocation: 250,
};

/** The data points' layout: blob1 says which event; the rest by event (docs/deploy.md, "Metrics"). */
export function jobDataPoint(f: FinishedJobFacts): AnalyticsEngineDataPoint {
  const waitMs = f.startedAt ? Date.parse(f.startedAt) - Date.parse(f.createdAt) : -1;
  const runMs = f.startedAt ? Date.parse(f.finishedAt) - Date.parse(f.startedAt) : 0;
  return checked({
    indexes: [f.accountId],
    blobs: ["job", f.status, f.errorCode ?? "", f.containerStart ?? ""],
    doubles: [waitMs, runMs, f.credits, f.bytesIn, f.bytesOut],
  });
}

export function webhookDataPoint(
  accountId: string,
  outcome: WebhookOutcome,
  latencyMs: number,
): AnalyticsEngineDataPoint {
  return checked({ indexes: [accountId], blobs: ["webhook", outcome], doubles: [latencyMs] });
}

/** One invocation's sink (services are built per invocation, as the 250-point limit counts). */
export function analyticsEngineSink(dataset: AnalyticsEngineDataset): MetricsSink {
  let written = 0;
  const write = (point: AnalyticsEngineDataPoint) => {
    // Metrics must never fail a job's end: past the invocation's limit the point is dropped, as the platform would.
    if (++written > ANALYTICS_ENGINE_LIMITS.pointsPerInvocation) return;
    dataset.writeDataPoint(point);
  };
  return {
    jobEnded: (facts) => write(jobDataPoint(facts)),
    webhookAttempt: (accountId, outcome, latencyMs) => write(webhookDataPoint(accountId, outcome, latencyMs)),
  };
}

function checked(point: AnalyticsEngineDataPoint): AnalyticsEngineDataPoint {
  const L = ANALYTICS_ENGINE_LIMITS;
  const bytes = (v: unknown) =>
    typeof v === "string" ? new TextEncoder().encode(v).length : v instanceof ArrayBuffer ? v.byteLength : 0;
  const blobs = point.blobs ?? [];
  if (blobs.length > L.blobs || (point.doubles ?? []).length > L.doubles || (point.indexes ?? []).length > 1)
    throw new Error("data point has too many fields for Analytics Engine");
  if ((point.indexes ?? []).some((i) => bytes(i) > L.indexBytes))
    throw new Error(`data point index over ${L.indexBytes} bytes`);
  if (blobs.reduce((n: number, b) => n + bytes(b), 0) > L.blobBytes)
    throw new Error(`data point blobs over ${L.blobBytes} bytes`);
  return point;
}
