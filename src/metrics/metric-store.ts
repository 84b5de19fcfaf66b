import { deliveredOutputsOf } from "../jobs/store/delivered-outputs.ts";
import type { MetricsSink } from "./analytics-engine.ts";
import type { ContainerStart } from "../runner/runner-client.ts";
import { hourOf, jobMetricRows, type FinishedJobFacts, type MetricRow } from "./metric-rows.ts";

/*
 * The metrics' own store: hourly rollups in D1 (migrations/0015_metrics.sql), read by
 * GET /v1/admin/metrics in every environment. A finished job is counted exactly once: its rows are
 * added in the same batch that sets `jobs.metrics_applied`, and only while it is unset. The end of a
 * job records it at once; the minute's sweep records any end whose recording was lost.
 */

/** Adds `rows` to the rollup of `hour` and `accountId`; with `onlyIf` (an SQL condition on ?1), only when it holds. */
export function addRollupsStatement(
  db: D1Database,
  hour: string,
  accountId: string,
  rows: MetricRow[],
  onlyIf?: { sql: string; param: string },
): D1PreparedStatement {
  const params: (string | number)[] = [onlyIf?.param ?? "", hour, accountId];
  const values = rows.map((r) => {
    params.push(r.metric, r.label, r.bucket, r.count, r.total);
    const n = params.length;
    return `(?${n - 4}, ?${n - 3}, ?${n - 2}, ?${n - 1}, ?${n})`;
  });
  return db
    .prepare(
      `INSERT INTO metric_rollups (hour, account_id, metric, label, bucket, count, total)
       SELECT ?2, ?3, column1, column2, column3, column4, column5 FROM (VALUES ${values.join(", ")})
       WHERE ${onlyIf ? onlyIf.sql : "1"}
       ON CONFLICT (hour, metric, label, bucket, account_id) DO UPDATE SET count = count + excluded.count, total = total + excluded.total`,
    )
    .bind(...params);
}

type FinishedJobRow = {
  account_id: string;
  status: string;
  error_code: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  credits_charged: number | null;
  input_reads_json: string | null;
  delivered_json: string | null;
  container_start: ContainerStart | null;
  metrics_applied: number;
  stored_bytes: number;
};

/** Counts a finished job in the rollups (and the sink) unless it already is; true when this call counted it. */
export async function recordFinishedJob(db: D1Database, jobId: string, sink?: MetricsSink): Promise<boolean> {
  const row = await db
    .prepare(
      `SELECT j.account_id, j.status, j.error_code, j.created_at, j.started_at, j.finished_at, j.credits_charged, j.input_reads_json,
              j.delivered_json, j.container_start, j.metrics_applied,
              (SELECT COALESCE(SUM(a.size), 0) FROM job_outputs o JOIN assets a ON a.id = o.asset_id WHERE o.job_id = j.id) AS stored_bytes
       FROM jobs j WHERE j.id = ?1`,
    )
    .bind(jobId)
    .first<FinishedJobRow>();
  if (!row || row.metrics_applied || !row.finished_at) return false;
  const facts = factsOf(row, row.finished_at);
  const [added] = await db.batch([
    addRollupsStatement(db, hourOf(row.finished_at), row.account_id, jobMetricRows(facts), {
      sql: "EXISTS (SELECT 1 FROM jobs WHERE id = ?1 AND metrics_applied = 0 AND finished_at IS NOT NULL)",
      param: jobId,
    }),
    db.prepare("UPDATE jobs SET metrics_applied = 1 WHERE id = ?1 AND metrics_applied = 0").bind(jobId),
  ]);
  const counted = added.meta.changes > 0;
  if (counted) sink?.jobEnded(facts);
  return counted;
}

function factsOf(row: FinishedJobRow, finishedAt: string): FinishedJobFacts {
  const reads = row.input_reads_json
    ? (JSON.parse(row.input_reads_json) as Record<string, { originBytes?: number }>)
    : {};
  const delivered = deliveredOutputsOf(row.delivered_json);
  return {
    accountId: row.account_id,
    status: row.status,
    errorCode: row.error_code,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt,
    credits: row.credits_charged ?? 0,
    bytesIn: Object.values(reads).reduce((n, r) => n + (r.originBytes ?? 0), 0),
    bytesOut: row.stored_bytes + delivered.reduce((n, d) => n + d.size, 0),
    containerStart: row.container_start,
  };
}

/** Finished jobs not yet counted (their end's recording was lost), oldest first. */
export async function uncountedJobIds(db: D1Database, limit: number): Promise<string[]> {
  const { results } = await db
    .prepare("SELECT id FROM jobs WHERE metrics_applied = 0 AND finished_at IS NOT NULL ORDER BY finished_at LIMIT ?1")
    .bind(limit)
    .all<{ id: string }>();
  return results.map((r) => r.id);
}

/** A job's container start, as its first attempt's hand-over found it (a retry's is not counted again). */
export function containerStartStatement(db: D1Database, jobId: string, start: ContainerStart): D1PreparedStatement {
  return db
    .prepare("UPDATE jobs SET container_start = ?2 WHERE id = ?1 AND container_start IS NULL")
    .bind(jobId, start);
}
