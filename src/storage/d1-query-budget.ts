/**
 * The platform allows one Worker invocation (a request, including a long-held stream or wait; a
 * queue batch; a cron run; a Durable Object request or alarm) at most 1,000 D1 queries on Workers
 * Paid (D1 limits: "queries per Worker invocation"; 50 on Free). Miniflare does not enforce it, so
 * the local stack and the tests wrap each invocation's D1 binding in this counter
 * (D1_QUERY_LIMIT_PER_INVOCATION), which refuses the query past the limit as the platform would.
 * Every statement of a batch counts. Production leaves the variable unset: the platform counts there.
 */
export class D1QueryBudgetExceeded extends Error {}

export type BudgetedD1 = D1Database & { queries: () => number };

/** Marks a binding that already counts, so a second wrap in the same invocation does not start afresh. */
const COUNTED = Symbol("d1-query-budget");

export function budgetedD1(db: D1Database, limit: number): BudgetedD1 {
  let used = 0;
  const real = new WeakMap<object, D1PreparedStatement>();
  const spend = (n: number) => {
    if (used + n > limit) {
      throw new D1QueryBudgetExceeded(`D1 query ${used + n} refused: more than ${limit} D1 queries in one Worker invocation (the platform's limit)`);
    }
    used += n;
  };
  const statement = (stmt: D1PreparedStatement): D1PreparedStatement => {
    const counted = new Proxy(stmt, {
      get(target, prop) {
        if (prop === "bind") return (...values: unknown[]) => statement(target.bind(...values));
        if (prop === "first" || prop === "run" || prop === "all" || prop === "raw") {
          return async (...args: unknown[]) => {
            spend(1);
            return (target[prop] as (...a: unknown[]) => unknown).apply(target, args);
          };
        }
        const value = Reflect.get(target, prop);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    real.set(counted, stmt);
    return counted;
  };
  return new Proxy(db, {
    get(target, prop) {
      if (prop === COUNTED) return true;
      if (prop === "queries") return () => used;
      if (prop === "prepare") return (sql: string) => statement(target.prepare(sql));
      if (prop === "batch") {
        return async (stmts: D1PreparedStatement[]) => {
          spend(stmts.length);
          return target.batch(stmts.map((st) => real.get(st) ?? st));
        };
      }
      if (prop === "exec") {
        return async (sql: string) => {
          spend(1);
          return target.exec(sql);
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as BudgetedD1;
}

/**
 * The env one invocation runs with: its D1 binding counted afresh when D1_QUERY_LIMIT_PER_INVOCATION
 * is set. Called where an invocation starts (src/index.ts for the Worker's handlers) and by
 * createServices (each Durable Object request or tick builds its services anew); a binding that
 * already counts is kept, so building services inside a request spends that request's budget.
 */
export function withQueryBudget<E extends { DB: D1Database; D1_QUERY_LIMIT_PER_INVOCATION?: string }>(env: E): E {
  const limit = Number(env.D1_QUERY_LIMIT_PER_INVOCATION);
  if (!env.D1_QUERY_LIMIT_PER_INVOCATION || !Number.isInteger(limit) || limit <= 0) return env;
  if ((env.DB as unknown as Record<symbol, unknown>)[COUNTED]) return env;
  return { ...env, DB: budgetedD1(env.DB, limit) };
}
