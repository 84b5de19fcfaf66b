// The sidecar's runtime configuration, as workerd sets it with `PUT /egress`. Mirrors
// cloudflare/proxy-everything main.go (`egressConfiguration`, `handlePut`): the port of workerd's
// egress listener, whether the container has internet, and the DNS allow patterns. Defaults as
// upstream: internet on and every name allowed until workerd says otherwise (workerd sends its
// configuration before the app container starts).

export type EgressConfig = {
  port: number;
  internetEnabled: boolean;
  /** Lower-case glob patterns (`*`, `cloudflare.*.com`, exact names), trailing dots removed. */
  dnsAllowPatterns: string[];
};

export function initialConfig(port: number): EgressConfig {
  return { port, internetEnabled: true, dnsAllowPatterns: ["*"] };
}

/** Upstream `normalizeDNSAllowPatterns`: trimmed, lower case, no trailing dot, empties dropped. */
export function normalizeAllowPatterns(hostnames: string[]): string[] {
  return hostnames.map((h) => h.trim().replace(/\.$/, "").toLowerCase()).filter(Boolean);
}

function validPort(port: unknown): port is number {
  return Number.isInteger(port) && (port as number) >= 1 && (port as number) <= 65535;
}

/**
 * Applies a `PUT /egress` body to the configuration and answers the status upstream answers:
 * 400 for a body that is not JSON, names none of `port`/`internet`/`dns`, or carries a bad port;
 * 204 otherwise. Fields that are absent leave the configuration as it was.
 */
export function applyEgressUpdate(config: EgressConfig, body: string): 204 | 400 {
  let payload: { port?: unknown; internet?: { enabled?: unknown } | null; dns?: { allowHostnames?: unknown } | null };
  try {
    payload = JSON.parse(body);
  } catch {
    return 400;
  }
  if (payload === null || typeof payload !== "object") return 400;
  if (payload.port === undefined && payload.internet == null && payload.dns == null) return 400;
  if (payload.port !== undefined) {
    if (!validPort(payload.port)) return 400;
    config.port = payload.port;
  }
  if (payload.internet && typeof payload.internet.enabled === "boolean") config.internetEnabled = payload.internet.enabled;
  const allow = payload.dns?.allowHostnames;
  if (Array.isArray(allow)) config.dnsAllowPatterns = normalizeAllowPatterns(allow.filter((h): h is string => typeof h === "string"));
  return 204;
}

/**
 * Upstream `dnsAllowedByPatterns`: `*`, an exact name, or Go's `path.Match` glob, where `*` matches
 * any run of characters except `/` and `?` exactly one (names hold no `/`, so `*` spans dots).
 */
export function dnsNameAllowed(patterns: string[], name: string): boolean {
  const wanted = name.replace(/\.$/, "").toLowerCase();
  return patterns.some((p) => p === "*" || p === wanted || globMatches(p, wanted));
}

function globMatches(pattern: string, name: string): boolean {
  const source = pattern.replace(/[.+^${}()|\\]/g, "\\$&").replace(/\[!/g, "[^").replace(/\*/g, "[^/]*").replace(/\?/g, "[^/]");
  try {
    return new RegExp(`^${source}$`).test(name);
  } catch {
    return false; // upstream logs a malformed pattern and skips it
  }
}
