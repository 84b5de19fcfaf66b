import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index.ts";
import { createServices } from "../../src/services.ts";
import { budgetedD1, type BudgetedD1 } from "../../src/storage/d1-query-budget.ts";
import { counted, startInvocation } from "../../src/platform/invocation.ts";
import { InvocationLimitExceeded } from "../../src/platform/invocation-budget.ts";
import { createAccount } from "./helpers.ts";

/**
 * The platform's limit on D1 queries per Worker invocation (1,000 on Workers Paid), which miniflare
 * does not enforce: the tests and the local stack count them and refuse the one past the limit.
 */
describe("D1 queries per invocation", () => {
  it("at the tests' limit (1,000, as the platform's): 1,000 queries run, the 1,001st is refused in the platform's words", async () => {
    expect(env.D1_QUERY_LIMIT_PER_INVOCATION).toBe("1000");
    const db = counted(env).DB as BudgetedD1;
    for (let i = 1; i <= 999; i++) await db.prepare("SELECT ?1 AS n").bind(i).first();
    expect(await db.prepare("SELECT 1000 AS n").first<{ n: number }>()).toEqual({ n: 1000 });
    expect(db.queries()).toBe(1000);
    await expect(db.prepare("SELECT 1001").run()).rejects.toThrow(
      /^D1_ERROR: Too many API requests by single Worker invocation\. .*D1 query 1001 is over 1000/,
    );
    await expect(db.prepare("SELECT 1001").all()).rejects.toBeInstanceOf(InvocationLimitExceeded);
  });

  it("counts every statement of a batch, and refuses a batch that would cross the limit as a whole", async () => {
    const db = budgetedD1(env.DB, 5);
    for (let i = 0; i < 2; i++)
      expect(await db.prepare("SELECT ?1 AS n").bind(i).first<{ n: number }>()).toEqual({ n: i });
    await db.batch([db.prepare("SELECT 1"), db.prepare("SELECT 2"), db.prepare("SELECT 3")]);
    expect(db.queries()).toBe(5);
    const refused = budgetedD1(env.DB, 2);
    await expect(
      refused.batch([refused.prepare("SELECT 1"), refused.prepare("SELECT 2"), refused.prepare("SELECT 3")]),
    ).rejects.toThrow(InvocationLimitExceeded);
  });

  it("one invocation keeps one count: services built inside it, even from the plain env, spend its budget; a new invocation starts afresh", async () => {
    const counts = await startInvocation(env, async (invocation) => {
      const db = invocation.DB as BudgetedD1;
      await db.prepare("SELECT 1").run();
      await createServices(invocation).db.prepare("SELECT 2").run();
      // A Durable Object builds its services from its plain `this.env`, inside its invocation.
      await createServices(env).db.prepare("SELECT 3").run();
      return db.queries();
    });
    expect(counts).toBe(3);
    expect(await startInvocation(env, async (next) => (next.DB as BudgetedD1).queries())).toBe(0);
    // Outside any invocation (a test calling it directly), services count as one of their own.
    const alone = createServices(env).db as BudgetedD1;
    await alone.prepare("SELECT 4").run();
    expect(alone.queries()).toBe(1);
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

  it("are not counted where the variables are unset (production: the platform counts)", () => {
    const plain = { ...env, D1_QUERY_LIMIT_PER_INVOCATION: undefined, SUBREQUEST_LIMIT_PER_INVOCATION: undefined };
    expect(counted(plain).DB).toBe(env.DB);
    expect(startInvocation(plain, (e) => e)).toBe(plain);
  });
});
