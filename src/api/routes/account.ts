import { Hono } from "hono";
import type { AppEnv } from "../app-env.ts";

/**
 * `GET /v1/account`: the key's account, its credit balance (null: unlimited) and use — credits
 * charged and jobs by status — for dashboards and budget checks.
 */
export const accountRoutes = new Hono<AppEnv>();

accountRoutes.get("/", async (c) => {
  const account = c.get("account");
  const { results } = await c.env.DB
    .prepare("SELECT status, COUNT(*) AS jobs, COALESCE(SUM(credits_charged), 0) AS credits FROM jobs WHERE account_id = ?1 GROUP BY status")
    .bind(account.id)
    .all<{ status: string; jobs: number; credits: number }>();
  const balance = await c.env.DB.prepare("SELECT credit_balance FROM accounts WHERE id = ?1").bind(account.id).first<{ credit_balance: number | null }>();
  return c.json({
    id: account.id,
    name: account.name,
    creditBalance: balance?.credit_balance ?? null,
    creditsUsed: results.reduce((n, r) => n + r.credits, 0),
    jobsByStatus: Object.fromEntries(results.map((r) => [r.status, r.jobs])),
  });
});
