/**
 * Which IP addresses an outbound request may reach. Pure: callers resolve names and ask about every
 * address the connection could use. Denies loopback, private, link-local (cloud metadata), CGNAT,
 * multicast and reserved ranges, and IPv6 forms that wrap them.
 */
type Range = [bigint, number];

const V4_DENIED: [string, number][] = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
];

const V6_DENIED: [string, number][] = [
  ["::", 128],
  ["::1", 128],
  ["100::", 64],
  ["2001:db8::", 32],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
];

/** IPv6 prefixes that carry an IPv4 address in their low 32 bits (or, for 6to4, bits 16-48). */
const V4_WRAPPERS: { prefix: string; bits: number; extract: (v: bigint) => bigint }[] = [
  { prefix: "::ffff:0:0", bits: 96, extract: (v) => v & 0xffffffffn },
  { prefix: "::", bits: 96, extract: (v) => v & 0xffffffffn },
  { prefix: "64:ff9b::", bits: 96, extract: (v) => v & 0xffffffffn },
  { prefix: "64:ff9b:1::", bits: 48, extract: (v) => v & 0xffffffffn },
  { prefix: "2002::", bits: 16, extract: (v) => (v >> 80n) & 0xffffffffn },
  { prefix: "2001::", bits: 32, extract: (v) => ~v & 0xffffffffn },
];

export function parseIPv4(s: string): bigint | null {
  const parts = s.split(".");
  if (parts.length !== 4) return null;
  let v = 0n;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return null;
    v = (v << 8n) | BigInt(Number(p));
  }
  return v;
}

export function parseIPv6(input: string): bigint | null {
  let s = input.replace(/^\[|\]$/g, "").toLowerCase();
  if (s.includes("%")) return null;
  const v4Tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (v4Tail) {
    const v4 = parseIPv4(v4Tail[1]);
    if (v4 === null) return null;
    s = `${s.slice(0, -v4Tail[1].length)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(":") : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const missing = 8 - head.length - tail.length;
  if ((halves.length === 1 && missing !== 0) || missing < 0) return null;
  const groups = [...head, ...Array(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  let v = 0n;
  for (const g of groups) {
    if (!/^[0-9a-f]{1,4}$/.test(g)) return null;
    v = (v << 16n) | BigInt(parseInt(g, 16));
  }
  return v;
}

function toRanges(list: [string, number][], parse: (s: string) => bigint | null, width: number): Range[] {
  return list.map(([addr, bits]) => [parse(addr)! >> BigInt(width - bits), bits]);
}
const V4_RANGES = toRanges(V4_DENIED, parseIPv4, 32);
const V6_RANGES = toRanges(V6_DENIED, parseIPv6, 128);

function inRanges(v: bigint, ranges: Range[], width: number): boolean {
  return ranges.some(([prefix, bits]) => v >> BigInt(width - bits) === prefix);
}

/** True when an address literal (v4 or v6) is publicly routable and may be contacted. */
export function isPublicAddress(address: string): boolean {
  const v4 = parseIPv4(address);
  if (v4 !== null) return !inRanges(v4, V4_RANGES, 32);
  const v6 = parseIPv6(address);
  if (v6 === null) return false;
  for (const w of V4_WRAPPERS) {
    const prefix = parseIPv6(w.prefix)!;
    if (v6 >> BigInt(128 - w.bits) === prefix >> BigInt(128 - w.bits)) {
      return !inRanges(w.extract(v6), V4_RANGES, 32);
    }
  }
  return !inRanges(v6, V6_RANGES, 128);
}

/** Hosts an operator named in ALLOWED_PRIVATE_HOSTS skip the address check. */
export function isAllowedPrivateHost(hostname: string, allowed: readonly string[]): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return allowed.some((a) => a.replace(/^\[|\]$/g, "").toLowerCase() === host);
}
