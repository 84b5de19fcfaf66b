import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index.ts";
import { budgetedD1, D1QueryBudgetExceeded } from "../../src/storage/d1-query-budget.ts";
import { createAccount } from "./helpers.ts";

/**
 * The platform's limit on D1 queries per Worker invocation (1,000 on Workers Paid), which miniflare
 * does not enforce: the tests and the local stack count them and refuse the one past the limit.
 */
describe("D1 queries per invocation", () => {
  it("are counted, every statement of a batch too, and the one past the limit is refused", async () => {
    const db = budgetedD1(env.DB, 5);
    for (let i = 0; i < 2; i++) expect(await db.prepare("SELECT ?1 AS n").bind(i).first<{ n: number }>()).toEqual({ n: i });
    await db.batch([db.prepare("SELECT 1"), db.prepare("SELECT 2"), db.prepare("SELECT 3")]);
    expect(db.queries()).toBe(5);
    await expect(db.prepare("SELECT 4").all()).rejects.toThrow(D1QueryBudgetExceeded);
    await expect(async () => db.prepare("SELECT 4").run()).rejects.toThrow(/more than 5 D1 queries in one Worker invocation/);
  });

  it("are counted afresh for each request the Worker serves, and enforced there", async () => {
    const { key } = await createAccount();
    const request = () => new Request("http://ffjobs.test/v1/jobs", { headers: { authorization: `Bearer ${key}` } });
    const serve = async (limit: string) => {
      const ctx = createExecutionContext();
      const res = await worker.fetch(request(), { ...env, D1_QUERY_LIMIT_PER_INVOCATION: limit }, ctx);
      await waitOnExecutionContext(ctx);
      return res.status;
    };
    expect(await serve("1")).toBe(500);
    for (let i = 0; i < 3; i++) expect(await serve("50")).toBe(200);
  });
});
