import { isAllowedPrivateHost, isPublicAddress, parseIPv4, parseIPv6 } from "../net/address-policy.ts";

const LOCAL_NAMES = /(^|\.)(localhost|local|internal|localdomain|home\.arpa)$/i;

/**
 * Whether the Worker may send a webhook to this URL: http/https, no userinfo, and no private,
 * loopback or link-local target unless the host is in ALLOWED_PRIVATE_HOSTS. IP literals in any
 * spelling are normalised by the URL parser (127.1, 2130706433, 0x7f000001 → 127.0.0.1) before the
 * check. Names are checked for local suffixes; Workers' own outbound fetch cannot reach private
 * networks, which covers names that resolve to private addresses.
 */
export function webhookUrlProblem(raw: string, allowedPrivateHosts: readonly string[]): string | null {
  if (!URL.canParse(raw)) return "must be a valid URL";
  const url = new URL(raw);
  if (url.protocol !== "https:" && url.protocol !== "http:") return "must be an http or https URL";
  if (url.username || url.password) return "must not contain credentials";
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isAllowedPrivateHost(host, allowedPrivateHosts)) return null;
  const isLiteral = parseIPv4(host) !== null || parseIPv6(host) !== null;
  if (isLiteral ? !isPublicAddress(host) : LOCAL_NAMES.test(host)) return "must not point at a private or local address";
  return null;
}
