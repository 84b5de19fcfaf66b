import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env.ts";
import { operation, serveOperations } from "../operation.ts";
import { errors, json } from "../openapi-responses.ts";

/**
 * `GET /v1/account`: the key's account, its credit balance (null: unlimited) and use — credits
 * charged and jobs by status — for dashboards and budget checks.
 */
const getAccount = operation(
  createRoute({
    method: "get",
    path: "/",
    operationId: "getAccount",
    summary: "The key's account: credit balance, credits used, jobs by status",
    responses: { 200: json("Account", "The account"), ...errors() },
  }),
  async (c) => {
    const account = c.get("account");
    const { results } = await c.env.DB.prepare(
      "SELECT status, COUNT(*) AS jobs, COALESCE(SUM(credits_charged), 0) AS credits FROM jobs WHERE account_id = ?1 GROUP BY status",
    )
      .bind(account.id)
      .all<{ status: string; jobs: number; credits: number }>();
    const balance = await c.env.DB.prepare("SELECT credit_balance FROM accounts WHERE id = ?1")
      .bind(account.id)
      .first<{ credit_balance: number | null }>();
    return c.json({
      id: account.id,
      name: account.name,
      creditBalance: balance?.credit_balance ?? null,
      creditsUsed: results.reduce((n, r) => n + r.credits, 0),
      jobsByStatus: Object.fromEntries(results.map((r) => [r.status, r.jobs])),
    });
  },
);

export const accountRoutes = new OpenAPIHono<AppEnv>();
serveOperations(accountRoutes, getAccount);
