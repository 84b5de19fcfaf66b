import { isAllowedPrivateHost, isPublicAddress, parseIPv4, parseIPv6 } from "./address-policy.ts";

/**
 * A host name's addresses, or why there are none. `ttlSeconds`: how long the answer may be reused,
 * as the DNS said (the least TTL of its records); absent when it said nothing.
 */
export type Resolution =
  | { addresses: string[]; ttlSeconds?: number }
  | { error: "nxdomain" | "failed"; detail: string };
export type Resolver = (hostname: string) => Promise<Resolution>;

/**
 * Why a client's URL may not be fetched, or null when it may: an IP literal must be public; a
 * name must resolve, and to public addresses only (every address, since a connection may use any).
 * Hosts the operator named in ALLOWED_PRIVATE_HOSTS skip the check.
 */
export async function destinationRefusal(
  url: URL,
  resolve: Resolver,
  allowedPrivateHosts: readonly string[],
): Promise<string | null> {
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (isAllowedPrivateHost(host, allowedPrivateHosts)) return null;
  if (parseIPv4(host) !== null || parseIPv6(host) !== null) {
    return isPublicAddress(host) ? null : `${host} is not a public address`;
  }
  const resolution = await resolve(host).catch((err): Resolution => ({ error: "failed", detail: String(err) }));
  if ("error" in resolution) {
    return resolution.error === "nxdomain"
      ? `${host} does not resolve`
      : `the address of ${host} could not be checked (${resolution.detail})`;
  }
  if (resolution.addresses.length === 0) return `${host} has no address`;
  // Whatever a resolver hands over: what is not an address string is refused like a private one, never a throw.
  const privateOne = resolution.addresses.find((a) => typeof a !== "string" || !isPublicAddress(a));
  return privateOne ? `${host} resolves to ${privateOne}, which is not a public address` : null;
}
