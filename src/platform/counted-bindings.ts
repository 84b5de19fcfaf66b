import type { InvocationBudget, SubrequestKind } from "./invocation-budget.ts";
import { budgetedD1 } from "../storage/d1-query-budget.ts";

/** The Worker's bindings (wrangler.toml, via src/worker-env.d.ts): every value that is not a var. */
type BindingName = { [K in keyof WranglerEnv]: WranglerEnv[K] extends string ? never : K }[keyof WranglerEnv];

/**
 * How each binding's calls are counted. Every binding must be listed (the type fails to check when
 * wrangler.toml gains one), so none can make subrequests the local stack does not see.
 */
export const BINDING_KINDS: Record<BindingName, SubrequestKind | "not a subrequest"> = {
  DB: "d1",
  BUCKET: "r2",
  JOBS_QUEUE: "queue",
  WEBHOOKS_QUEUE: "queue",
  JOB_COORDINATOR: "durable-object",
  FFMPEG_CONTAINER: "durable-object",
  RATE_LIMITER: "durable-object",
  CONTAINER_POOL: "durable-object",
  // workerd counts Analytics Engine writes apart (LimitEnforcer::newAnalyticsEngineRequest).
  METRICS: "not a subrequest",
};

/** Calls a function value of a proxied binding with its own `this` (Reflect: an RPC stub's `.apply` would be a remote property). */
const call = (fn: unknown, self: object, args: unknown[]) =>
  Reflect.apply(fn as (...a: unknown[]) => unknown, self, args);

/** A binding whose every method call is one subrequest of `kind`, except the calls in `free` (no I/O), whose results are counted in turn. */
function countedCalls<T extends object>(
  binding: T,
  kind: SubrequestKind,
  budget: InvocationBudget,
  // biome-ignore lint/suspicious/noExplicitAny: `free` maps a binding's method names to wrappers of whatever those methods return.
  free: Record<string, (result: any) => unknown> = {},
): T {
  return new Proxy(binding, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (typeof value !== "function" || typeof prop === "symbol") return value;
      const wrapResult = free[prop];
      if (wrapResult) return (...args: unknown[]) => wrapResult(call(value, target, args));
      return (...args: unknown[]) => {
        budget.spend(kind);
        return call(value, target, args);
      };
    },
  });
}

/** R2: every call but `resumeMultipartUpload` (a handle, no request); a multipart upload's own calls too. */
function countedBucket(bucket: R2Bucket, budget: InvocationBudget): R2Bucket {
  const upload = (u: R2MultipartUpload) => countedCalls(u, "r2", budget);
  const counted = countedCalls(bucket, "r2", budget, { resumeMultipartUpload: upload });
  return new Proxy(counted, {
    get(target, prop) {
      if (prop !== "createMultipartUpload") return Reflect.get(target, prop);
      return async (...args: unknown[]) =>
        upload((await call(Reflect.get(target, prop), target, args)) as R2MultipartUpload);
    },
  });
}

/** A Durable Object namespace: ids and stubs are free; each stub's fetch or RPC call is one subrequest. */
// biome-ignore lint/suspicious/noExplicitAny: any Durable Object class's namespace; the wrapper only counts calls.
function countedNamespace<T extends DurableObjectNamespace<any>>(ns: T, budget: InvocationBudget): T {
  const stub = (s: object) => countedCalls(s, "durable-object", budget);
  return new Proxy(ns, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (typeof value !== "function") return value;
      if (prop === "get" || prop === "getByName")
        return (...args: unknown[]) => stub(call(value, target, args) as object);
      if (prop === "jurisdiction")
        return (...args: unknown[]) => countedNamespace(call(value, target, args) as T, budget);
      return (...args: unknown[]) => call(value, target, args);
    },
  });
}

/** The env with each binding counted against `budget` (vars and anything unlisted untouched). */
export function countBindings<E extends object>(env: E, budget: InvocationBudget): E {
  const out: Record<string, unknown> = { ...(env as Record<string, unknown>) };
  for (const [name, kind] of Object.entries(BINDING_KINDS)) {
    const binding = out[name];
    if (!binding || typeof binding !== "object") continue;
    if (kind === "d1") out[name] = budgetedD1(binding as D1Database, budget);
    else if (kind === "r2") out[name] = countedBucket(binding as R2Bucket, budget);
    else if (kind === "queue") out[name] = countedCalls(binding, "queue", budget);
    else if (kind === "durable-object") out[name] = countedNamespace(binding as DurableObjectNamespace, budget);
  }
  return out as E;
}
