import type { CreateJobRequest } from "../../api/schemas/job-request.ts";
import type { OutputDestination, RequestIssue } from "./job-request.ts";
import { isLocalTarget } from "../../net/public-url.ts";
import { parseIPv4, parseIPv6 } from "../../net/address-policy.ts";

type Use = "input" | "destination";

/** Every URL the runner will reach for a job: its URL inputs (fetched) and its outputs' destinations (PUT to). */
function urlInputs(req: CreateJobRequest): { url: URL; path: string[]; use: Use }[] {
  const all = req.input
    ? req.input.map((input, i) => ({ input, path: ["input", String(i), "url"] }))
    : Object.entries(req.inputs ?? {}).map(([name, input]) => ({ input, path: ["inputs", name, "url"] }));
  const inputs = all.flatMap(({ input, path }) =>
    input.type === "url" && URL.canParse(input.url) ? [{ url: new URL(input.url), path, use: "input" as const }] : [],
  );
  const destinations = Object.entries(req.outputs ?? {}).flatMap(([name, o]) =>
    destinationUrls(o.destination).flatMap(({ url, path }) =>
      URL.canParse(url)
        ? [{ url: new URL(url), path: ["outputs", name, "destination", ...path], use: "destination" as const }]
        : [],
    ),
  );
  return [...inputs, ...destinations];
}

/** A destination's URLs, at their paths in it: one, or a multipart upload's parts (one per host: they share it) and completion. */
function destinationUrls(d: OutputDestination | undefined): { url: string; path: string[] }[] {
  if (!d) return [];
  if (d.url !== undefined) return [{ url: d.url, path: ["url"] }];
  const parts = d.parts!;
  const firstOfHost = new Map<string, number>();
  for (const [i, u] of parts.urls.entries()) {
    if (URL.canParse(u) && !firstOfHost.has(new URL(u).host)) firstOfHost.set(new URL(u).host, i);
  }
  return [
    ...[...firstOfHost.values()].map((i) => ({ url: parts.urls[i], path: ["parts", "urls", String(i)] })),
    { url: parts.completeUrl, path: ["parts", "completeUrl"] },
  ];
}

const REACHED: Record<Use, string> = { input: "inputs are fetched", destination: "outputs are sent" };

/**
 * A URL input on a private or loopback address would be refused by the runner's fetch anyway: say so
 * at creation, at its path, instead of failing the job later (names resolving to private addresses
 * are still caught by the runner, which checks every address it connects to).
 */
export function privateUrlIssues(req: CreateJobRequest, allowedPrivateHosts: readonly string[]): RequestIssue[] {
  return urlInputs(req).flatMap(({ url, path, use }) =>
    isLocalTarget(url, allowedPrivateHosts)
      ? [
          {
            path,
            message: `${url.hostname} is a private or local address: ${REACHED[use]} only ${use === "input" ? "from" : "to"} public addresses (operators can allow hosts with ALLOWED_PRIVATE_HOSTS)`,
          },
        ]
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
  return urlInputs(req).flatMap(({ url, path, use }) => {
    const { port, protocol } = url;
    const what = use === "input" ? "inputs" : "destinations";
    if (protocol === "https:" && isIpLiteral(url.hostname)) {
      return [
        {
          path,
          message: `https ${what} need a host name, not an IP address: the service's egress routes HTTPS by its server name`,
        },
      ];
    }
    if (port === "") return [];
    const usual = protocol === "https:" ? 443 : 80;
    const reaches =
      use === "input" ? `fetches ${protocol.slice(0, -1)} inputs` : `sends to ${protocol.slice(0, -1)} destinations`;
    return [{ path, message: `port ${port} cannot be reached: the service ${reaches} only on port ${usual}` }];
  });
}

function isIpLiteral(hostname: string): boolean {
  return parseIPv4(hostname) !== null || parseIPv6(hostname) !== null;
}
