import { readFileSync } from "node:fs";
import { networkInterfaces } from "node:os";
import { parseIPv4, parseIPv6 } from "../../src/net/address-policy.ts";

/** A network as the kernel would match it: family, prefix value, prefix length. */
export type Network = { family: 4 | 6; prefix: bigint; bits: number };

const V4_MAPPED_PREFIX = 0xffffn; // ::ffff:a.b.c.d
const LOOPBACK: Network[] = [
  { family: 4, prefix: 127n << 24n, bits: 8 },
  { family: 6, prefix: 1n, bits: 128 },
];
/** 0.0.0.0 and :: connect to the container itself. */
const UNSPECIFIED: Network[] = [
  { family: 4, prefix: 0n, bits: 32 },
  { family: 6, prefix: 0n, bits: 128 },
];
const DEFAULT_GATEWAY_BITS = 24;

function parse(address: string): { family: 4 | 6; value: bigint } | null {
  const v4 = parseIPv4(address);
  if (v4 !== null) return { family: 4, value: v4 };
  const v6 = parseIPv6(address);
  if (v6 === null) return null;
  // A v4-mapped v6 address connects to its v4 address.
  if (v6 >> 32n === V4_MAPPED_PREFIX) return { family: 4, value: v6 & 0xffffffffn };
  return { family: 6, value: v6 };
}

export function network(address: string, bits: number): Network | null {
  const parsed = parse(address);
  if (!parsed) return null;
  const width = parsed.family === 4 ? 32 : 128;
  return { family: parsed.family, prefix: (parsed.value >> BigInt(width - bits)) << BigInt(width - bits), bits };
}

function within(address: string, net: Network): boolean {
  const parsed = parse(address);
  if (!parsed || parsed.family !== net.family) return false;
  const shift = BigInt((net.family === 4 ? 32 : 128) - net.bits);
  return parsed.value >> shift === net.prefix >> shift;
}

/** The default route's gateway, from the kernel's IPv4 routing table (little-endian hex), or null. */
export function defaultGatewayIPv4(routeTable: string): string | null {
  for (const line of routeTable.split("\n").slice(1)) {
    const [, destination, gateway] = line.trim().split(/\s+/);
    if (destination !== "00000000" || !gateway || !/^[0-9A-Fa-f]{8}$/.test(gateway)) continue;
    const n = parseInt(gateway, 16);
    return [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >>> 24].join(".");
  }
  return null;
}

/**
 * The networks Cloudflare's sidecar leaves alone (cloudflare/proxy-everything main.go,
 * `ipv4Ignored`/`ipv6Ignored`: loopback, the Docker network, the egress gateway's /24 and every
 * address range of the container's own interfaces): a connection there goes straight out and never
 * reaches the Worker's outbound handler, so its address check would be skipped.
 */
export function sidecarBypassNetworks(
  interfaces: ReturnType<typeof networkInterfaces> = networkInterfaces(),
  routeTable: string = readRouteTable(),
): Network[] {
  const own = Object.values(interfaces)
    .flat()
    .flatMap((a) => (a?.cidr ? [network(a.address, Number(a.cidr.split("/")[1]))] : []))
    .filter((n): n is Network => n !== null);
  const gateway = defaultGatewayIPv4(routeTable);
  const gatewayNet = gateway ? network(gateway, DEFAULT_GATEWAY_BITS) : null;
  return [...LOOPBACK, ...UNSPECIFIED, ...own, ...(gatewayNet ? [gatewayNet] : [])];
}

function readRouteTable(): string {
  try {
    return readFileSync("/proc/net/route", "utf8");
  } catch {
    return "";
  }
}

/** True when a connection to `address` would not go through the sidecar (see sidecarBypassNetworks). */
export function bypassesSidecar(address: string, networks: readonly Network[]): boolean {
  return parse(address) === null || networks.some((n) => within(address, n));
}
