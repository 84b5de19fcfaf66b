import { InvocationBudget } from "../platform/invocation-budget.ts";
import { D1_ROW_TOO_BIG_ERROR, ROW_TOO_BIG } from "../platform/d1-row-size.ts";

/**
 * An invocation's D1 binding, counted (src/platform/invocation-budget.ts says what and why): each
 * call (`first`, `run`, `all`, `raw`, `batch`, `exec`) is one subrequest and as many D1 queries as
 * it runs statements, and the one past a limit is refused as the platform would refuse it; a row the
 * local database refuses for its size (src/platform/d1-row-size.ts) fails in D1's words. Only where
 * the local stack enforces the limits; production uses the binding as it is.
 */
export type BudgetedD1 = D1Database & { queries: () => number };

export function budgetedD1(db: D1Database, budget: InvocationBudget | number): BudgetedD1 {
  const counts =
    typeof budget === "number" ? new InvocationBudget({ d1Queries: budget, subrequests: Infinity }) : budget;
  const real = new WeakMap<object, D1PreparedStatement>();
  const statement = (stmt: D1PreparedStatement): D1PreparedStatement => {
    const counted = new Proxy(stmt, {
      get(target, prop) {
        if (prop === "bind") return (...values: unknown[]) => statement(target.bind(...values));
        if (prop === "first" || prop === "run" || prop === "all" || prop === "raw") {
          return async (...args: unknown[]) => {
            counts.spendD1(1);
            return (target[prop] as (...a: unknown[]) => Promise<unknown>).apply(target, args).catch(inD1Words);
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
      if (prop === "queries") return () => counts.d1Queries;
      if (prop === "prepare") return (sql: string) => statement(target.prepare(sql));
      if (prop === "batch") {
        return async (stmts: D1PreparedStatement[]) => {
          counts.spendD1(stmts.length);
          return target.batch(stmts.map((st) => real.get(st) ?? st)).catch(inD1Words);
        };
      }
      if (prop === "exec") {
        return async (sql: string) => {
          counts.spendD1(1);
          return target.exec(sql).catch(inD1Words);
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as BudgetedD1;
}

/** The local row-size triggers' refusal, as D1 itself words it when a row is too big. */
function inD1Words(err: unknown): never {
  if (err instanceof Error && err.message.includes(ROW_TOO_BIG) && !err.message.includes("SQLITE_TOOBIG"))
    throw new Error(D1_ROW_TOO_BIG_ERROR, { cause: err });
  throw err;
}
