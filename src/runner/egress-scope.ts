import type { RunnerJobRequest } from "./runner-protocol.ts";

/**
 * What a job's container may reach: exactly the requests its job needs (GET each input URL, PUT
 * each output's upload URL, POST its coordinator's notification URL), nothing else. Matching whole URLs rather than hosts keeps the
 * container off everything else that shares a host with storage (in local development the API
 * itself serves the storage endpoint).
 */
export type EgressScope = { allow: { method: "GET" | "PUT" | "POST"; url: string; prefix?: true }[] };

/** Deny-all responses carry this header so the runner can say why a request failed. */
export const EGRESS_REFUSED_HEADER = "x-ffjobs-egress";

export function egressScopeOf(req: RunnerJobRequest): EgressScope {
  return {
    allow: [
      ...req.inputs.map((i) => ({ method: "GET" as const, url: comparable(i.url) })),
      // A directory output's files are PUT under its upload prefix (their names are known only after the run).
      ...req.outputs.map((o) => ({ method: "PUT" as const, url: comparable(o.uploadUrl), ...(o.kind === "directory" ? { prefix: true as const } : {}) })),
      ...(req.notifyUrl ? [{ method: "POST" as const, url: comparable(req.notifyUrl) }] : []),
    ],
  };
}

/** A dry run's probe: GET its inputs, nothing else. */
export function probeScopeOf(inputs: { url: string }[]): EgressScope {
  return { allow: inputs.map((i) => ({ method: "GET" as const, url: comparable(i.url) })) };
}

/**
 * An instance runs one job at a time (every placement), so admitting a job drops the scopes of any
 * other: one the pool took back from a job whose coordinator never released it keeps nothing of it.
 */
export function staleScopeKeys(stored: string[], admitted: string): string[] {
  return stored.filter((k) => k !== admitted);
}

/** Unions scopes: an instance that serves several jobs may reach what each of them may. */
export function mergeScopes(scopes: EgressScope[]): EgressScope {
  const seen = new Map<string, EgressScope["allow"][number]>();
  for (const rule of scopes.flatMap((s) => s.allow)) seen.set(`${rule.method} ${rule.url} ${rule.prefix ? "prefix" : ""}`, rule);
  return { allow: [...seen.values()] };
}

export function egressAllows(scope: EgressScope | undefined, method: string, url: string): boolean {
  if (!scope) return false;
  const wanted = comparable(url);
  // HEAD reads no more than GET; the runner does not send it today, but a retrying client might.
  const asGet = method === "HEAD" ? "GET" : method;
  return scope.allow.some((rule) => rule.method === asGet && (rule.prefix ? wanted.startsWith(rule.url) && !wanted.slice(rule.url.length).includes("/") : rule.url === wanted));
}

export function egressRefusal(method: string, url: string): Response {
  const host = URL.canParse(url) ? new URL(url).host : "that host";
  return new Response(`egress refused: ${method} ${host} is not one of this job's inputs or outputs`, {
    status: 403,
    headers: { [EGRESS_REFUSED_HEADER]: "refused", "content-type": "text/plain" },
  });
}

/**
 * One spelling per URL: the container's request reaches the Worker rebuilt from its Host header
 * (default ports dropped, no fragment), so both sides are normalized the same way.
 */
function comparable(url: string): string {
  if (!URL.canParse(url)) return url;
  const u = new URL(url);
  u.hash = "";
  return u.href;
}
