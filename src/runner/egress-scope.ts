import type { RunnerInput, RunnerJobRequest } from "./runner-protocol.ts";

/**
 * What a job's container may reach: exactly the requests its job needs (GET each input URL, PUT
 * each output's upload URL, POST its coordinator's notification URL), nothing else. Matching whole URLs rather than hosts keeps the
 * container off everything else that shares a host with storage (in local development the API
 * itself serves the storage endpoint).
 */
export type EgressRule = {
  method: "GET" | "PUT" | "POST";
  url: string;
  prefix?: true;
  /** A client's URL: its destination is checked, and its redirects followed by the Worker. */
  external?: true;
};
export type EgressScope = {
  allow: EgressRule[];
  /** Hosts the job's URL inputs name: the only hosts a redirect of one of them may lead to. */
  namedHosts?: string[];
};

/** Deny-all responses carry this header so the runner can say why a request failed. */
export const EGRESS_REFUSED_HEADER = "x-ffjobs-egress";

export function egressScopeOf(req: RunnerJobRequest): EgressScope {
  return {
    namedHosts: namedHostsOf(req.inputs),
    allow: [
      ...req.inputs.map(inputRule),
      // A directory output's files are PUT under its upload prefix (their names are known only after the run).
      ...req.outputs.map((o) => ({ method: "PUT" as const, url: comparable(o.uploadUrl), ...(o.kind === "directory" ? { prefix: true as const } : {}) })),
      ...(req.notifyUrl ? [{ method: "POST" as const, url: comparable(req.notifyUrl) }] : []),
    ],
  };
}

/** A dry run's probe: GET its inputs, nothing else. */
export function probeScopeOf(inputs: RunnerInput[]): EgressScope {
  return { allow: inputs.map(inputRule), namedHosts: namedHostsOf(inputs) };
}

function inputRule(input: RunnerInput): EgressRule {
  return { method: "GET", url: comparable(input.url), ...(input.trusted ? {} : { external: true as const }) };
}

function namedHostsOf(inputs: RunnerInput[]): string[] {
  return [...new Set(inputs.filter((i) => !i.trusted && URL.canParse(i.url)).map((i) => new URL(i.url).hostname.toLowerCase()))];
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
  const seen = new Map<string, EgressRule>();
  for (const rule of scopes.flatMap((s) => s.allow)) seen.set(`${rule.method} ${rule.url} ${rule.prefix ? "prefix" : ""} ${rule.external ? "external" : ""}`, rule);
  return { allow: [...seen.values()], namedHosts: [...new Set(scopes.flatMap((s) => s.namedHosts ?? []))] };
}

/** The rule that lets this request through, if any. */
export function matchingRule(scope: EgressScope | undefined, method: string, url: string): EgressRule | undefined {
  if (!scope) return undefined;
  const wanted = comparable(url);
  // HEAD reads no more than GET; the runner does not send it today, but a retrying client might.
  const asGet = method === "HEAD" ? "GET" : method;
  return scope.allow.find((rule) => rule.method === asGet && (rule.prefix ? wanted.startsWith(rule.url) && !wanted.slice(rule.url.length).includes("/") : rule.url === wanted));
}

export function egressAllows(scope: EgressScope | undefined, method: string, url: string): boolean {
  return matchingRule(scope, method, url) !== undefined;
}

/** A request outside the job's scope. */
export function egressRefusal(method: string, url: string): Response {
  const host = URL.canParse(url) ? new URL(url).host : "that host";
  return egressRefusedBecause(`${method} ${host} is not one of this job's inputs or outputs`);
}

/** The runner repeats the text in the job's error: it says what was refused and why. */
export function egressRefusedBecause(reason: string): Response {
  return new Response(`egress refused ${reason}`, { status: 403, headers: { [EGRESS_REFUSED_HEADER]: "refused", "content-type": "text/plain" } });
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
