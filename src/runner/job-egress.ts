import { destinationRefusal, type Resolver } from "../net/destination-check.ts";
import { egressRefusal, egressRefusedBecause, matchingRule, type EgressScope } from "./egress-scope.ts";

/** As many hops as the runner itself follows when it fetches directly. */
export const MAX_EGRESS_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export type JobEgressDeps = {
  fetch: (req: Request) => Promise<Response>;
  resolve: Resolver;
  allowedPrivateHosts: readonly string[];
  /** Requests the Worker answers itself (a made-up host): the runner's notifications and directory-output files. */
  internal: (req: Request, url: URL) => Promise<Response> | null;
};

/**
 * Everything a job's container sends reaches the Worker here (its outbound handler), with the
 * host name the container asked for, whatever address the sidecar's DNS gave it. Only the job's
 * own requests pass. A client's URL (an `external` rule) is checked where its real destination
 * is known: the name is resolved here and every address must be public, and the origin's
 * redirects are followed here, each hop checked again and allowed only to a host the job's
 * inputs name, so the container never sees a redirect and nothing unnamed is ever reached. An
 * upload to the user's destination (PUT, POST) is checked the same way and sent, never redirected.
 */
export async function serveJobEgress(
  req: Request,
  scope: EgressScope | undefined,
  deps: JobEgressDeps,
): Promise<Response> {
  const rule = matchingRule(scope, req.method, req.url);
  if (!rule) return egressRefusal(req.method, req.url);
  const url = new URL(req.url);
  const answered = deps.internal(req, url);
  if (answered) return answered;
  if (!rule.external) return deps.fetch(new Request(req, { redirect: "manual" }));
  return fetchExternal(req, new Set(scope?.namedHosts ?? []), deps);
}

async function fetchExternal(first: Request, namedHosts: Set<string>, deps: JobEgressDeps): Promise<Response> {
  let url = new URL(first.url);
  // The container's Host names the first hop; every hop's comes from its own URL.
  const headers = new Headers(first.headers);
  headers.delete("host");
  if (first.method !== "GET" && first.method !== "HEAD") {
    // An upload to the user's destination: its body is sent once, so a redirect is answered, not followed.
    const refusal = await destinationRefusal(url, deps.resolve, deps.allowedPrivateHosts);
    if (refusal) return egressRefusedBecause(`${url.host}: ${refusal}`);
    return deps.fetch(
      new Request(url, {
        method: first.method,
        headers,
        body: first.body,
        redirect: "manual",
        duplex: "half",
      } as RequestInit),
    );
  }
  for (let hop = 0; ; hop++) {
    const refusal = await destinationRefusal(url, deps.resolve, deps.allowedPrivateHosts);
    if (refusal) return egressRefusedBecause(`${url.host}: ${refusal}`);
    const res = await deps.fetch(new Request(url, { method: first.method, headers, redirect: "manual" }));
    const location = res.headers.get("location");
    if (!REDIRECT_STATUSES.has(res.status) || !location) return res;
    await res.body?.cancel();
    const next = URL.canParse(location, url) ? new URL(location, url) : null;
    if (!next || (next.protocol !== "http:" && next.protocol !== "https:"))
      return egressRefusedBecause(`${url.host}: it redirected to something that is not an http(s) URL`);
    if (!namedHosts.has(next.hostname.toLowerCase())) {
      return egressRefusedBecause(
        `${next.host}: ${url.host} redirected there, and no input of the job names that host`,
      );
    }
    if (hop >= MAX_EGRESS_REDIRECTS)
      return egressRefusedBecause(`${url.host}: more than ${MAX_EGRESS_REDIRECTS} redirects`);
    url = next;
  }
}
