// Which traffic of the app container the double intercepts, as cloudflare/proxy-everything main.go
// (`entrypoint`) sets it up: every TCP connection and every UDP query to port 53, except to the
// ranges it leaves alone (loopback, the Docker network, the egress gateway's /24 and every address
// range of the namespace's own interfaces). TCP goes by TPROXY to one transparent listener, which
// then reads the connection's real destination from the socket, exactly as upstream's rules do.
// DNS goes by DNAT instead of upstream's TPROXY: answering a TPROXY'd datagram needs a transparent
// UDP socket sending from the original resolver's address, which Node cannot open; conntrack gives
// the container the same view (the reply comes from the resolver it asked).
//
// One rule upstream does not have: what upstream leaves alone and would leave the machine (UDP other
// than DNS, ICMP, to addresses outside the ranges left alone) is dropped, because nothing of the lab
// may leave the machine. ffjobs sends no such traffic; whether production lets it out is for
// `npm run smoke` to find (its direct-connection check), not for this double to show.
import { execFileSync } from "node:child_process";
import { networkInterfaces } from "node:os";

/** Upstream's defaults: `-address 127.0.0.3:41209`; the listener's mark (`--mark 100`) exempts its own traffic. */
export const TPROXY_LISTENER = { address: "127.0.0.3", port: 41209 };
const BYPASS_MARK = "100";
const ROUTE_TABLE = "100";
const CHAIN = "DOCKER_PROXY_ANYTHING";
const TPROXY_CHAIN = `${CHAIN}_TPROXY`;
const DNS_CHAIN = "DOCKER_PROXY_DNS";

/** Every IPv4 range of the namespace's own interfaces, in CIDR form (upstream `networkDeviceCIDRs`). */
export function deviceCidrsV4(interfaces: ReturnType<typeof networkInterfaces> = networkInterfaces()): string[] {
  return Object.values(interfaces)
    .flat()
    .filter((a) => a?.family === "IPv4" && a.cidr)
    .map((a) => a!.cidr!);
}

/** Upstream `ipv4Ignored`: loopback, the Docker network, the gateway's /24, the devices' ranges. */
export function ignoredRangesV4(dockerGatewayCidr: string, egressIp: string, deviceCidrs: string[]): string[] {
  return ["127.0.0.1/8", dockerGatewayCidr, `${egressIp}/24`, ...deviceCidrs];
}

/** The commands, in upstream's order for TCP; then the double's DNAT for DNS. */
export function interceptionCommands(ignored: string[], dns: { address: string; port: number }): string[][] {
  const mangle = (...rule: string[]) => ["iptables", "-t", "mangle", ...rule];
  const skipIgnored = (chain: string) => ignored.map((cidr) => mangle("-A", chain, "-d", cidr, "-j", "RETURN"));
  return [
    ["ip", "-4", "rule", "add", "fwmark", "1", "table", ROUTE_TABLE],
    ["ip", "-4", "route", "add", "local", "default", "dev", "lo", "table", ROUTE_TABLE],
    mangle("-N", "DIVERT"),
    mangle("-A", "DIVERT", "-j", "MARK", "--set-mark", "1"),
    mangle("-A", "DIVERT", "-j", "ACCEPT"),
    mangle("-A", "PREROUTING", "-p", "tcp", "-m", "socket", "-j", "DIVERT"),
    mangle("-N", TPROXY_CHAIN),
    ...skipIgnored(TPROXY_CHAIN),
    mangle("-A", TPROXY_CHAIN, "-m", "mark", "-p", "tcp", "--mark", BYPASS_MARK, "-j", "RETURN"),
    mangle(
      "-A",
      TPROXY_CHAIN,
      "-p",
      "tcp",
      "-j",
      "TPROXY",
      "--tproxy-mark",
      "0x1/0x1",
      "--on-port",
      String(TPROXY_LISTENER.port),
      "--on-ip",
      TPROXY_LISTENER.address,
    ),
    mangle("-A", "PREROUTING", "-p", "tcp", "-j", TPROXY_CHAIN),
    mangle("-N", CHAIN),
    mangle("-A", CHAIN, "-p", "tcp", "-m", "conntrack", "--ctdir", "REPLY", "-j", "RETURN"),
    ...skipIgnored(CHAIN),
    mangle("-A", CHAIN, "-m", "mark", "-p", "tcp", "--mark", BYPASS_MARK, "-j", "RETURN"),
    mangle("-A", CHAIN, "-j", "MARK", "--set-mark", "1"),
    mangle("-A", "OUTPUT", "-p", "tcp", "-j", CHAIN),
    ["ip", "-4", "route", "flush", "cache"],
    ["iptables", "-t", "nat", "-N", DNS_CHAIN],
    ...ignored.map((cidr) => ["iptables", "-t", "nat", "-A", DNS_CHAIN, "-d", cidr, "-j", "RETURN"]),
    [
      "iptables",
      "-t",
      "nat",
      "-A",
      DNS_CHAIN,
      "-p",
      "udp",
      "--dport",
      "53",
      "-j",
      "DNAT",
      "--to-destination",
      `${dns.address}:${dns.port}`,
    ],
    ["iptables", "-t", "nat", "-A", "OUTPUT", "-p", "udp", "--dport", "53", "-j", DNS_CHAIN],
    // The lab's fence (not upstream's): TCP is intercepted and DNS redirected above; the rest stays local.
    ["iptables", "-A", "OUTPUT", "-p", "tcp", "-j", "ACCEPT"],
    ["iptables", "-A", "OUTPUT", "-p", "udp", "--dport", "53", "-j", "ACCEPT"],
    ...ignored.map((cidr) => ["iptables", "-A", "OUTPUT", "-d", cidr, "-j", "ACCEPT"]),
    ["iptables", "-A", "OUTPUT", "-j", "DROP"],
  ];
}

export function installInterception(commands: string[][]): void {
  for (const [bin, ...args] of commands) execFileSync(bin, args, { stdio: ["ignore", "ignore", "inherit"] });
}
