import type { CreateJobRequest } from "../api/schemas.ts";
import type { RequestIssue } from "./job-request.ts";
import { isLocalTarget } from "../net/public-url.ts";
import { parseIPv4, parseIPv6 } from "../net/address-policy.ts";

function urlInputs(req: CreateJobRequest) {
  const all = req.input
    ? req.input.map((input, i) => ({ input, path: ["input", String(i), "url"] }))
    : Object.entries(req.inputs ?? {}).map(([name, input]) => ({ input, path: ["inputs", name, "url"] }));
  return all.flatMap(({ input, path }) => (input.type === "url" && URL.canParse(input.url) ? [{ url: new URL(input.url), path }] : []));
}

/**
 * A URL input on a private or loopback address would be refused by the runner's fetch anyway: say so
 * at creation, at its path, instead of failing the job later (names resolving to private addresses
 * are still caught by the runner, which checks every address it connects to).
 */
export function privateUrlIssues(req: CreateJobRequest, allowedPrivateHosts: readonly string[]): RequestIssue[] {
  return urlInputs(req).flatMap(({ url, path }) =>
    isLocalTarget(url, allowedPrivateHosts)
      ? [{ path, message: `${url.hostname} is a private or local address: inputs are fetched only from public addresses (operators can allow hosts with ALLOWED_PRIVATE_HOSTS)` }]
      : [],
  );
}

/**
 * In production a container's requests leave through Cloudflare's sidecar to the Worker's outbound
 * handler, which the platform hands only ports 80 (http) and 443 (https), and HTTPS only by its
 * server name (SNI): a URL input on another port, or an https one named by IP address, could never
 * be fetched, so it is refused at creation with a clear reason instead of failing deep in the job.
 */
export function unreachableUrlIssues(req: CreateJobRequest, runnerMode: "container" | "local"): RequestIssue[] {
  if (runnerMode !== "container") return [];
  return urlInputs(req).flatMap(({ url, path }) => {
    const { port, protocol } = url;
    if (protocol === "https:" && isIpLiteral(url.hostname)) {
      return [{ path, message: `https inputs need a host name, not an IP address: the service's egress routes HTTPS by its server name` }];
    }
    if (port === "") return [];
    const usual = protocol === "https:" ? 443 : 80;
    return [{ path, message: `port ${port} cannot be reached: the service fetches ${protocol.slice(0, -1)} inputs only on port ${usual}` }];
  });
}

function isIpLiteral(hostname: string): boolean {
  return parseIPv4(hostname) !== null || parseIPv6(hostname) !== null;
}
