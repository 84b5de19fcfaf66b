/**
 * The addresses Cloudflare's container sidecar answers for every allowed name while the container
 * has no internet (cloudflare/proxy-everything dns.go: `dnsAllowedIPv4`, `dnsAllowedIPv6`). Inside a
 * container they say nothing about the real destination: a connection to them reaches the sidecar,
 * which hands it to the Worker's outbound handler, and that handler checks where it really goes
 * (docs/security.md, "Where the address check lives").
 */
export const SIDECAR_FALLBACK_ADDRESSES: readonly string[] = ["11.0.0.1", "fd00::1"];

export function isSidecarFallbackAddress(address: string): boolean {
  return SIDECAR_FALLBACK_ADDRESSES.includes(address.toLowerCase());
}
