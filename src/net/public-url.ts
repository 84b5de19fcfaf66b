import { isAllowedPrivateHost, isPublicAddress, parseIPv4, parseIPv6 } from "./address-policy.ts";

const LOCAL_NAMES = /(^|\.)(localhost|local|internal|localdomain|home\.arpa)$/i;

/**
 * Whether a URL names a private, loopback, link-local or local-only target (and its host is not in
 * ALLOWED_PRIVATE_HOSTS). IP literals in any spelling are normalised by the URL parser (127.1,
 * 2130706433, 0x7f000001 → 127.0.0.1) before the check; names are checked for local suffixes. What
 * a name resolves to is checked where the connection is made (the runner's lookup; Workers' fetch).
 */
export function isLocalTarget(url: URL, allowedPrivateHosts: readonly string[]): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isAllowedPrivateHost(host, allowedPrivateHosts)) return false;
  const isLiteral = parseIPv4(host) !== null || parseIPv6(host) !== null;
  return isLiteral ? !isPublicAddress(host) : LOCAL_NAMES.test(host);
}
