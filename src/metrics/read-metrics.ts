import { NO_BUCKET, quantileOf, type Histogram } from "./histogram.ts";
import { hourOf } from "./metric-rows.ts";
import type { MetricsReport } from "./metrics-report.ts";

export type MetricsPeriod = { since: Date; until: Date; accountId: string | null; accountName: string | null };

/** Periods up to this long are drawn hour by hour (a week asked for is 7 days and up to 2 hours once rounded to whole hours), longer ones day by day. */
const HOURLY_UP_TO_MS = 8 * 86_400_000;
const TOP_ACCOUNTS = 100;

type Rolled = { metric: string; label: string; bucket: number; count: number; total: number };

/** The operator's figures for a period, from the hourly rollups (metric-store.ts). */
export async function readMetrics(db: D1Database, p: MetricsPeriod): Promise<MetricsReport> {
  const granularity = p.until.getTime() - p.since.getTime() <= HOURLY_UP_TO_MS ? "hour" : "day";
  const where = (t = "") => `${t}hour >= ?1 AND ${t}hour < ?2${p.accountId ? ` AND ${t}account_id = ?3` : ""}`;
  const params = [hourOf(p.since.toISOString()), hourOf(p.until.toISOString()), ...(p.accountId ? [p.accountId] : [])];
  const width = granularity === "hour" ? 13 : 10;
  const [totals, series, accounts] = await db.batch<Rolled & { at?: string; account?: string }>([
    db
      .prepare(
        `SELECT metric, label, bucket, SUM(count) AS count, SUM(total) AS total FROM metric_rollups WHERE ${where()} GROUP BY metric, label, bucket`,
      )
      .bind(...params),
    db
      .prepare(
        `SELECT substr(hour, 1, ${width}) AS at, metric, label, bucket, SUM(count) AS count, SUM(total) AS total FROM metric_rollups
       WHERE ${where()} AND metric IN ('jobs', 'credits', 'queue_wait_ms', 'run_ms') GROUP BY at, metric, label, bucket`,
      )
      .bind(...params),
    db
      .prepare(
        `SELECT a.name AS account, r.metric, r.label, -1 AS bucket, SUM(r.count) AS count, SUM(r.total) AS total FROM metric_rollups r JOIN accounts a ON a.id = r.account_id
       WHERE ${where("r.")} AND r.metric IN ('jobs', 'credits', 'bytes_in', 'bytes_out') GROUP BY a.name, r.metric, r.label`,
      )
      .bind(...params),
  ]);
  const all = totals.results;
  const byAt = groupBy(series.results, (r) => r.at!);
  return {
    since: p.since.toISOString(),
    until: p.until.toISOString(),
    granularity,
    account: p.accountName,
    jobs: counts(all, "jobs"),
    errors: counts(all, "job_errors"),
    queueWaitMs: distribution(all, "queue_wait_ms"),
    runMs: distribution(all, "run_ms"),
    containerStarts: {
      cold: counts(all, "container_starts").cold ?? 0,
      warm: counts(all, "container_starts").warm ?? 0,
    },
    bytesIn: Math.round(sum(all, "bytes_in")),
    bytesOut: Math.round(sum(all, "bytes_out")),
    credits: sum(all, "credits"),
    webhookAttempts: { delivered: 0, retrying: 0, failed: 0, ...counts(all, "webhook_attempts") },
    series: periodStarts(p, granularity).map((at) => {
      const rows = byAt.get(at.toISOString().slice(0, width)) ?? [];
      const wait = histogram(rows, "queue_wait_ms");
      const run = histogram(rows, "run_ms");
      return {
        at: at.toISOString(),
        jobs: counts(rows, "jobs"),
        credits: sum(rows, "credits"),
        queueWaitP50Ms: quantileOf(wait, 0.5),
        queueWaitP90Ms: quantileOf(wait, 0.9),
        runP50Ms: quantileOf(run, 0.5),
        runP90Ms: quantileOf(run, 0.9),
      };
    }),
    accounts: [...groupBy(accounts.results, (r) => r.account!)]
      .map(([account, rows]) => {
        const jobs = counts(rows, "jobs");
        return {
          account,
          jobs: Object.values(jobs).reduce((a, b) => a + b, 0),
          failed: jobs.failed ?? 0,
          credits: sum(rows, "credits"),
          bytesIn: Math.round(sum(rows, "bytes_in")),
          bytesOut: Math.round(sum(rows, "bytes_out")),
        };
      })
      .sort((a, b) => b.jobs - a.jobs || a.account.localeCompare(b.account))
      .slice(0, TOP_ACCOUNTS),
  };
}

function counts(rows: Rolled[], metric: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of rows) if (r.metric === metric) out[r.label] = (out[r.label] ?? 0) + r.count;
  return out;
}

function sum(rows: Rolled[], metric: string): number {
  return rows.reduce((n, r) => n + (r.metric === metric ? r.total : 0), 0);
}

function histogram(rows: Rolled[], metric: string): Histogram {
  const h: Histogram = new Map();
  for (const r of rows)
    if (r.metric === metric && r.bucket !== NO_BUCKET) h.set(r.bucket, (h.get(r.bucket) ?? 0) + r.count);
  return h;
}

function distribution(rows: Rolled[], metric: string): MetricsReport["runMs"] {
  const h = histogram(rows, metric);
  const n = [...h.values()].reduce((a, b) => a + b, 0);
  return {
    count: n,
    meanMs: n ? Math.round(sum(rows, metric) / n) : null,
    p50Ms: quantileOf(h, 0.5),
    p90Ms: quantileOf(h, 0.9),
    p99Ms: quantileOf(h, 0.99),
  };
}

function periodStarts(p: MetricsPeriod, granularity: "hour" | "day"): Date[] {
  const stepMs = granularity === "hour" ? 3_600_000 : 86_400_000;
  const first = new Date(p.since);
  if (granularity === "day") first.setUTCHours(0);
  const out: Date[] = [];
  for (let t = first.getTime(); t < p.until.getTime(); t += stepMs) out.push(new Date(t));
  return out;
}

function groupBy<T>(rows: T[], key: (r: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const r of rows) m.set(key(r), [...(m.get(key(r)) ?? []), r]);
  return m;
}
