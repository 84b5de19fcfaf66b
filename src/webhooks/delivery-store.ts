import type { MetricsSink } from "../metrics/analytics-engine.ts";
import { addRollupsStatement } from "../metrics/metric-store.ts";
import { hourOf, webhookMetricRows } from "../metrics/metric-rows.ts";
import { keysetPage, type Cursor } from "../storage/keyset-page.ts";

export type DeliveryRow = {
  id: string;
  account_id: string;
  job_id: string | null;
  event_id: string;
  event_type: string;
  url: string;
  payload: string;
  status: "pending" | "succeeded" | "failed";
  attempt_count: number;
  created_at: string;
  updated_at: string;
};

export type AttemptRow = {
  id: string;
  delivery_id: string;
  attempted_at: string;
  http_status: number | null;
  error_kind: string | null;
  latency_ms: number;
};

export type AttemptResult = { httpStatus: number | null; errorKind: string | null; latencyMs: number };

export async function insertDelivery(
  db: D1Database,
  d: {
    id: string;
    accountId: string;
    jobId: string | null;
    eventId: string;
    eventType: string;
    url: string;
    payload: string;
    now: string;
  },
): Promise<void> {
  await db
    .prepare(
      `INSERT INTO webhook_deliveries (id, account_id, job_id, event_id, event_type, url, payload, status, created_at, updated_at)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'pending', ?8, ?8)`,
    )
    .bind(d.id, d.accountId, d.jobId, d.eventId, d.eventType, d.url, d.payload, d.now)
    .run();
}

export async function getDelivery(db: D1Database, id: string, accountId?: string): Promise<DeliveryRow | null> {
  const stmt = accountId
    ? db.prepare("SELECT * FROM webhook_deliveries WHERE id = ?1 AND account_id = ?2").bind(id, accountId)
    : db.prepare("SELECT * FROM webhook_deliveries WHERE id = ?1").bind(id);
  return stmt.first<DeliveryRow>();
}

/**
 * Logs one attempt and counts it in the metrics (the rollups, and `sink` where there is one); `final`
 * (succeeded/failed) ends the delivery, `pending` leaves it for a retry.
 */
export async function recordAttempt(
  db: D1Database,
  delivery: Pick<DeliveryRow, "id" | "account_id">,
  r: AttemptResult,
  status: DeliveryRow["status"],
  now: string,
  sink?: MetricsSink,
): Promise<void> {
  const deliveryId = delivery.id;
  const outcome = status === "succeeded" ? "delivered" : status === "failed" ? "failed" : "retrying";
  await db.batch([
    db
      .prepare(
        "INSERT INTO webhook_attempts (id, delivery_id, attempted_at, http_status, error_kind, latency_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
      )
      .bind(crypto.randomUUID(), deliveryId, now, r.httpStatus, r.errorKind, r.latencyMs),
    db
      .prepare(
        "UPDATE webhook_deliveries SET status = ?2, attempt_count = attempt_count + 1, updated_at = ?3 WHERE id = ?1",
      )
      .bind(deliveryId, status, now),
    addRollupsStatement(db, hourOf(now), delivery.account_id, webhookMetricRows(outcome, r.latencyMs)),
  ]);
  sink?.webhookAttempt(delivery.account_id, outcome, r.latencyMs);
}

/** Marks a pending delivery failed without an attempt (its retries ran out in the queue itself). */
export async function markFailed(db: D1Database, deliveryId: string, now: string): Promise<void> {
  await db
    .prepare("UPDATE webhook_deliveries SET status = 'failed', updated_at = ?2 WHERE id = ?1 AND status = 'pending'")
    .bind(deliveryId, now)
    .run();
}

export async function reopenDelivery(db: D1Database, deliveryId: string, now: string): Promise<void> {
  await db
    .prepare("UPDATE webhook_deliveries SET status = 'pending', updated_at = ?2 WHERE id = ?1")
    .bind(deliveryId, now)
    .run();
}

/** What the delivery log shows of each delivery: everything but `payload` (a job's whole form, up to megabytes). */
const DELIVERY_LIST_COLUMNS = [
  "id",
  "job_id",
  "event_id",
  "event_type",
  "url",
  "status",
  "attempt_count",
  "created_at",
  "updated_at",
] as const;
export type ListedDelivery = Pick<DeliveryRow, (typeof DELIVERY_LIST_COLUMNS)[number]>;

/** Newest first, keyset-paginated, with each delivery's attempts. */
export async function listDeliveries(
  db: D1Database,
  accountId: string,
  q: { limit: number; jobId?: string; cursor?: Cursor },
) {
  const filters: [string, unknown][] = [["account_id", accountId]];
  if (q.jobId) filters.push(["job_id", q.jobId]);
  const page = await keysetPage<ListedDelivery>(db, {
    table: "webhook_deliveries",
    columns: DELIVERY_LIST_COLUMNS,
    filters,
    limit: q.limit,
    cursor: q.cursor,
  });
  return {
    ...page,
    attempts: await attemptsOf(
      db,
      page.rows.map((r) => r.id),
    ),
  };
}

/** Every logged attempt of these deliveries, oldest first. */
export async function attemptsOf(db: D1Database, deliveryIds: string[]): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  const marks = deliveryIds.map((_, i) => `?${i + 1}`).join(", ");
  const { results } = await db
    .prepare(`SELECT * FROM webhook_attempts WHERE delivery_id IN (${marks}) ORDER BY attempted_at, id`)
    .bind(...deliveryIds)
    .all<AttemptRow>();
  return results;
}
