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

/** The first JSON value of a body, as Go's `json.Decoder.Decode` reads it (what follows is never read). */
function firstJsonValue(body: string): unknown {
  const text = body.trimStart();
  if (!text.startsWith("{")) return JSON.parse(text);
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{" || c === "[") depth++;
    else if ((c === "}" || c === "]") && --depth === 0) return JSON.parse(text.slice(0, i + 1));
  }
  throw new SyntaxError("unexpected end of JSON input");
}

class TypeMismatch extends Error {}
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Go's field matching: the key equal to the field's name, else one equal to it ignoring case; the last such wins. */
function field(obj: Record<string, unknown>, name: string): unknown {
  let found: unknown;
  for (const [key, value] of Object.entries(obj)) if (key.toLowerCase() === name.toLowerCase()) found = value;
  return found;
}

/** A struct pointer field: null or absent is nil; anything but an object cannot be decoded into it. */
function struct(value: unknown): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw new TypeMismatch();
  return value;
}

/** The body decoded into upstream's payload struct, or null where `Decode` fails. */
function decodePayload(
  body: string,
): { port?: number; internet?: { enabled?: boolean }; dns?: { allowHostnames?: string[] } } | null {
  let root: unknown;
  try {
    root = firstJsonValue(body);
  } catch {
    return null;
  }
  if (root === null) return {};
  try {
    if (!isObject(root)) throw new TypeMismatch();
    const port = field(root, "port");
    if (port !== undefined && port !== null && !(typeof port === "number" && Number.isSafeInteger(port)))
      throw new TypeMismatch();
    const internet = struct(field(root, "internet"));
    const enabled = internet ? field(internet, "enabled") : undefined;
    if (enabled !== undefined && enabled !== null && typeof enabled !== "boolean") throw new TypeMismatch();
    const dns = struct(field(root, "dns"));
    const allow = dns ? field(dns, "allowHostnames") : undefined;
    if (allow !== undefined && allow !== null && !(Array.isArray(allow) && allow.every((h) => typeof h === "string")))
      throw new TypeMismatch();
    return {
      ...(typeof port === "number" ? { port } : {}),
      ...(internet ? { internet: typeof enabled === "boolean" ? { enabled } : {} } : {}),
      ...(dns ? { dns: Array.isArray(allow) ? { allowHostnames: allow as string[] } : {} } : {}),
    };
  } catch (err) {
    if (err instanceof TypeMismatch) return null;
    throw err;
  }
}

/**
 * Applies a `PUT /egress` body as upstream's `handlePut` does: decoded as Go decodes it into its
 * payload struct (the first JSON value only; keys matched ignoring case; a value of the wrong type
 * fails the whole body), then 400 for a body that names none of `port`/`internet`/`dns` or carries a
 * port outside 1-65535, 204 otherwise. Fields that are absent or null leave the configuration as it was.
 */
export function applyEgressUpdate(config: EgressConfig, body: string): 204 | 400 {
  const payload = decodePayload(body);
  if (!payload) return 400;
  if (payload.port === undefined && payload.internet === undefined && payload.dns === undefined) return 400;
  if (payload.port !== undefined) {
    if (!validPort(payload.port)) return 400;
    config.port = payload.port;
  }
  if (payload.internet?.enabled !== undefined) config.internetEnabled = payload.internet.enabled;
  if (payload.dns?.allowHostnames !== undefined)
    config.dnsAllowPatterns = normalizeAllowPatterns(payload.dns.allowHostnames);
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
  const source = pattern
    .replace(/[.+^${}()|\\]/g, "\\$&")
    .replace(/\[!/g, "[^")
    .replace(/\*/g, "[^/]*")
    .replace(/\?/g, "[^/]");
  try {
    return new RegExp(`^${source}$`).test(name);
  } catch {
    return false; // upstream logs a malformed pattern and skips it
  }
}
