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
  /**
   * The runner id (job, task or probe) the scope was admitted for, set at admission
   * (container-transport.ts): the Worker keeps DNS answers per job (src/net/resolution-cache.ts).
   * A union of several jobs' scopes names them all, space-separated.
   */
  jobId?: string;
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
      ...req.outputs.flatMap(outputRules),
      ...(req.notifyUrl ? [{ method: "POST" as const, url: comparable(req.notifyUrl) }] : []),
    ],
  };
}

/**
 * An output's requests: a PUT to the service's storage (a directory's files under its prefix: their
 * names are known only after the run; a file's parts, while it is written, under its parts prefix), or to the user's destination, which is a client's URL like an
 * input's (checked where it really leads): one PUT, or a multipart upload's part PUTs and its POST.
 */
function outputRules(o: RunnerJobRequest["outputs"][number]): EgressRule[] {
  const prefix = o.kind === "directory" ? { prefix: true as const } : {};
  if (!o.destination)
    return [
      { method: "PUT", url: comparable(o.uploadUrl), ...prefix },
      ...(o.streamParts
        ? (["PUT", "POST"] as const).map((method) => ({
            method,
            url: comparable(o.streamParts!.url),
            prefix: true as const,
          }))
        : []),
    ];
  const parts = o.destination.parts;
  if (!parts) return [{ method: "PUT", url: comparable(o.uploadUrl), ...prefix, external: true }];
  return [
    ...parts.urls.map((url): EgressRule => ({ method: "PUT", url: comparable(url), external: true })),
    { method: "POST", url: comparable(parts.completeUrl), external: true },
  ];
}

/** A dry run's probe: GET its inputs, nothing else. */
export function probeScopeOf(inputs: RunnerInput[]): EgressScope {
  return { allow: inputs.map(inputRule), namedHosts: namedHostsOf(inputs) };
}

function inputRule(input: RunnerInput): EgressRule {
  return { method: "GET", url: comparable(input.url), ...(input.trusted ? {} : { external: true as const }) };
}

function namedHostsOf(inputs: RunnerInput[]): string[] {
  return [
    ...new Set(
      inputs.filter((i) => !i.trusted && URL.canParse(i.url)).map((i) => new URL(i.url).hostname.toLowerCase()),
    ),
  ];
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
  for (const rule of scopes.flatMap((s) => s.allow))
    seen.set(`${rule.method} ${rule.url} ${rule.prefix ? "prefix" : ""} ${rule.external ? "external" : ""}`, rule);
  const jobIds = [...new Set(scopes.flatMap((s) => (s.jobId ? [s.jobId] : [])))].sort();
  return {
    ...(jobIds.length ? { jobId: jobIds.join(" ") } : {}),
    allow: [...seen.values()],
    namedHosts: [...new Set(scopes.flatMap((s) => s.namedHosts ?? []))],
  };
}

/** The rule that lets this request through, if any. */
export function matchingRule(scope: EgressScope | undefined, method: string, url: string): EgressRule | undefined {
  if (!scope) return undefined;
  const wanted = comparable(url);
  // HEAD reads no more than GET; the runner does not send it today, but a retrying client might.
  const asGet = method === "HEAD" ? "GET" : method;
  return scope.allow.find(
    (rule) => rule.method === asGet && (rule.prefix ? underPrefix(wanted, rule.url) : rule.url === wanted),
  );
}

/** A file right under a prefix URL (no deeper folder), with the prefix's own query (a SAS), if any. */
function underPrefix(wanted: string, prefix: string): boolean {
  const [base, query = ""] = splitQuery(prefix);
  const [path, asked = ""] = splitQuery(wanted);
  return (
    query === asked && path.startsWith(base) && path.length > base.length && !path.slice(base.length).includes("/")
  );
}

function splitQuery(url: string): [string, string?] {
  const at = url.indexOf("?");
  return at < 0 ? [url] : [url.slice(0, at), url.slice(at + 1)];
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
  return new Response(`egress refused ${reason}`, {
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
