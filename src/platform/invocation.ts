import { countBindings } from "./counted-bindings.ts";
import { countFetches } from "./counted-fetch.ts";
import { currentBudget, InvocationBudget, limitsOf, runCounted, type LimitVars } from "./invocation-budget.ts";

/** An env that belongs to one invocation carries its budget (not enumerable: spreading the env drops it). */
const BUDGET = Symbol("invocation-budget");

export function budgetOf(env: object): InvocationBudget | undefined {
  return (env as Record<symbol, InvocationBudget | undefined>)[BUDGET];
}

/** The env with every binding charged to `budget` (src/platform/counted-bindings.ts). */
export function countedEnv<E extends object>(env: E, budget: InvocationBudget): E {
  const out = countBindings(env, budget);
  Object.defineProperty(out, BUDGET, { value: budget, enumerable: false });
  return out;
}

/**
 * Where an invocation starts (the Worker's fetch, queue and scheduled handlers, a container's
 * outbound handler, each entry point of a Durable Object): `run` gets the env whose bindings, and
 * whose fetch() calls, count against a budget of this invocation's own where the local stack
 * enforces the platform's limits. An env that already carries a budget (a test's) is that
 * invocation's. Production (no limit set): `run(env)`, nothing wrapped.
 */
export function startInvocation<E extends LimitVars & object, R>(
  env: E,
  run: (env: E) => R,
  owner: object | null = null,
): R {
  const given = budgetOf(env);
  const limits = given ? null : limitsOf(env);
  if (!given && !limits) return run(env);
  const budget = given ?? new InvocationBudget(limits!);
  countFetches();
  return runCounted(budget, owner, () => run(given ? env : countedEnv(env, budget)));
}

/**
 * The env for code that builds what it needs from a plain env (createServices, a Durable Object's
 * `this.env`): charged to the invocation it runs in; outside any (a test calling it directly), to
 * a budget of its own, as if it were one.
 */
export function counted<E extends LimitVars & object>(env: E): E {
  if (budgetOf(env)) return env;
  const limits = limitsOf(env);
  if (!limits) return env;
  return countedEnv(env, currentBudget() ?? new InvocationBudget(limits));
}
