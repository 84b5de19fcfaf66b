import { AsyncLocalStorage } from "node:async_hooks";

/**
 * What the platform allows one invocation, mirrored where the local stack and the tests set the
 * variables (`D1_QUERY_LIMIT_PER_INVOCATION`, `SUBREQUEST_LIMIT_PER_INVOCATION`; production leaves
 * them unset, the platform counts there). Miniflare and workerd enforce neither: workerd's own
 * LimitEnforcer::newSubrequest is a no-op (src/workerd/server/server.c++).
 *
 * What counts, from Cloudflare's pages and workerd's source:
 * - Workers limits, "Subrequests" (developers.cloudflare.com/workers/platform/limits/#subrequests):
 *   "A subrequest is any request that a Worker makes to either Internet resources using the Fetch
 *   API or requests to other Cloudflare services like R2, KV, or D1"; 50 per invocation on Free,
 *   10,000 on Paid by default ("can increase this limit up to 10 Million", `limits.subrequests`);
 *   requests to internal services (KV, Durable Objects) have a limit of their own that "will match
 *   your configured subrequest limit on paid plans". "Each subrequest in a redirect chain counts."
 *   workerd calls LimitEnforcer::newSubrequest(isInHouse) in IoContext::getSubrequest for each
 *   fetch() (not in house), each Durable Object stub's fetch or RPC call (actor.c++, in house) and
 *   each call of the D1, R2 and Queue bindings (in house). Creating a stub or an id is not one;
 *   neither is an Analytics Engine data point (a limit of its own).
 * - D1 limits (developers.cloudflare.com/d1/platform/limits/): "Queries per Worker invocation:
 *   1000 (Workers Paid) / 50 (Free)". Counted per statement, a batch's each (stricter than one
 *   call per batch, which a deployed Worker was measured to count).
 * - An invocation: a Worker request (a held stream or wait is one, however long), a queue batch, a
 *   cron run, a container's outbound request (the containers library calls the handler in an
 *   invocation of ContainerProxy), and each event a Durable Object receives (a fetch, an RPC call,
 *   an alarm): workerd "tops up" an actor's limits for every event it delivers
 *   (IoContext::IncomingRequest::delivered → LimitEnforcer::topUpActor). Here work an event starts
 *   (a tick started by `notify`) is charged to that event, even after it answered.
 * The local stack keeps one count of subrequests of every kind (the platform keeps external and
 * internal apart, each with the same limit on Paid): stricter, never looser.
 */
export type SubrequestKind = "fetch" | "d1" | "r2" | "queue" | "durable-object";

export type InvocationLimits = { d1Queries: number; subrequests: number };

/** The platform's words when an invocation asks for more (seen in production; workerd's open source has no enforcer). */
export const TOO_MANY_SUBREQUESTS = "Too many subrequests by single Worker invocation.";
export const TOO_MANY_API_REQUESTS =
  "Too many API requests by single Worker invocation. To configure this limit, refer to https://developers.cloudflare.com/workers/wrangler/configuration/#limits";

/** A subrequest (or D1 query) the platform would refuse: thrown, or rejected, where the platform's would be. */
export class InvocationLimitExceeded extends Error {}

/** One invocation's counts. */
export class InvocationBudget {
  d1Queries = 0;
  subrequests = 0;
  readonly byKind: Record<SubrequestKind, number> = { fetch: 0, d1: 0, r2: 0, queue: 0, "durable-object": 0 };
  readonly limits: InvocationLimits;

  constructor(limits: InvocationLimits) {
    this.limits = limits;
  }

  /** One subrequest of this kind, or the platform's refusal if it is one too many. */
  spend(kind: SubrequestKind): void {
    if (this.subrequests + 1 > this.limits.subrequests) {
      const words = kind === "fetch" ? TOO_MANY_SUBREQUESTS : TOO_MANY_API_REQUESTS;
      throw new InvocationLimitExceeded(
        `${words} (subrequest ${this.subrequests + 1}, a ${kind} call, is over ${this.limits.subrequests}: the local stack enforces the platform's limit)`,
      );
    }
    this.subrequests++;
    this.byKind[kind]++;
  }

  /** `statements` D1 queries in one call (a batch is as many as it holds); the call is also a subrequest. */
  spendD1(statements: number): void {
    if (this.d1Queries + statements > this.limits.d1Queries) {
      throw new InvocationLimitExceeded(
        `D1_ERROR: ${TOO_MANY_API_REQUESTS} (D1 query ${this.d1Queries + statements} is over ${this.limits.d1Queries}, D1's queries per Worker invocation: the local stack enforces it)`,
      );
    }
    this.spend("d1");
    this.d1Queries += statements;
  }
}

export type LimitVars = { D1_QUERY_LIMIT_PER_INVOCATION?: string; SUBREQUEST_LIMIT_PER_INVOCATION?: string };

const positive = (text: string | undefined) => {
  const n = Number(text);
  return text && Number.isInteger(n) && n > 0 ? n : null;
};

/** The limits the environment asks the local stack to enforce; null in production (neither set). */
export function limitsOf(env: LimitVars): InvocationLimits | null {
  const d1Queries = positive(env.D1_QUERY_LIMIT_PER_INVOCATION);
  const subrequests = positive(env.SUBREQUEST_LIMIT_PER_INVOCATION);
  if (d1Queries === null && subrequests === null) return null;
  return { d1Queries: d1Queries ?? Infinity, subrequests: subrequests ?? Infinity };
}

/** The invocation the running code belongs to (its async context), if one was started. */
const invocations = new AsyncLocalStorage<{ budget: InvocationBudget; owner: object | null }>();

export function currentBudget(): InvocationBudget | undefined {
  return invocations.getStore()?.budget;
}

/** The object whose entry point started the current invocation (a Durable Object instance), if any. */
export function currentOwner(): object | null {
  return invocations.getStore()?.owner ?? null;
}

/** Runs `fn` as the invocation `budget` counts; everything it starts is charged there. */
export function runCounted<R>(budget: InvocationBudget, owner: object | null, fn: () => R): R {
  return invocations.run({ budget, owner }, fn);
}
