import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env.ts";
import { ApiError, invalidRequest } from "../api-error.ts";
import { metricsQuerySchema } from "../schemas/admin.ts";
import { METRICS_RETENTION_DAYS } from "../../metrics/metric-rows.ts";
import { operation, serveOperations } from "../operation.ts";
import { errors, json } from "../openapi-responses.ts";
import { readMetrics } from "../../metrics/read-metrics.ts";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * `GET /v1/admin/metrics`: the service's figures for a period, for the operator (an account marked
 * operator: `npm run keys -- create --operator`). Any other key gets 403, whatever it asks
 * (src/api/operator-only.ts, on every /v1/admin route).
 */
const getMetrics = operation(
  createRoute({
    method: "get",
    path: "/metrics",
    operationId: "getMetrics",
    summary:
      "Operator metrics for a period: jobs by status and error code, queue wait and run time percentiles, container starts, bytes, credits, webhook outcomes, per hour or day and per account (an operator account's key)",
    request: { query: metricsQuerySchema },
    responses: {
      200: json("MetricsReport", "The period's figures"),
      ...errors({ 400: ["INVALID_REQUEST"], 403: ["FORBIDDEN"], 404: ["NOT_FOUND"] }),
    },
  }),
  async (c) => {
    const q = c.req.valid("query");
    const until = new Date(Math.ceil((q.until ? Date.parse(q.until) : Date.now()) / HOUR_MS) * HOUR_MS);
    const since = new Date(Math.floor((q.since ? Date.parse(q.since) : until.getTime() - DAY_MS) / HOUR_MS) * HOUR_MS);
    if (since >= until)
      throw invalidRequest([{ path: ["query", "since"], message: "must be before until", code: "custom" }]);
    if (until.getTime() - since.getTime() > METRICS_RETENTION_DAYS * DAY_MS) {
      throw invalidRequest([
        {
          path: ["query", "since"],
          message: `at most ${METRICS_RETENTION_DAYS} days before until (as long as metrics are kept)`,
          code: "custom",
        },
      ]);
    }
    let accountId: string | null = null;
    if (q.account) {
      const row = await c.env.DB.prepare("SELECT id FROM accounts WHERE name = ?1")
        .bind(q.account)
        .first<{ id: string }>();
      if (!row) throw new ApiError("NOT_FOUND", `No account named "${q.account}"`);
      accountId = row.id;
    }
    return c.json(await readMetrics(c.env.DB, { since, until, accountId, accountName: q.account ?? null }));
  },
);

export const adminRoutes = new OpenAPIHono<AppEnv>();
serveOperations(adminRoutes, getMetrics);
