// The egress half of the sidecar double, mirroring cloudflare/proxy-everything main.go
// (`proxy.run`, `dialHTTPConnect`): every TCP connection the app container opens is intercepted;
// the sidecar peeks the TLS SNI (any port) or, on port 80 without SNI, the HTTP Host, and opens
// `CONNECT ip:port` to workerd's egress listener with `X-Tls-Sni` / `X-Hostname`. workerd answers
// 200 (its outbound handler serves the tunnel as HTTP; for SNI the sidecar first terminates TLS
// with a leaf of its own CA), 202 (pass bytes through; workerd closes them while the container has
// no internet), 400 (refused) or another status (error): on an error the connection is reset.
//
// Where the double differs, and why (lab/README.md lists them):
// - Upstream intercepts with TPROXY and reads the real destination from the socket. Node cannot
//   set IP_TRANSPARENT, so the double uses DNAT to listeners of its own, one per port the
//   platform carries (80, 443); the destination IP it reports is the Host's IP literal when there
//   is one, else the fallback address its DNS answered for every name (11.0.0.1). Connections to
//   other ports, which workerd closes while the container has no internet, are reset.
// - Upstream leaves 127.0.0.0/8 alone; the double also intercepts loopback so that the lab's
//   loopback storage and API stand in for Cloudflare's public hosts.
import { execFileSync } from "node:child_process";
import net from "node:net";
import { networkInterfaces } from "node:os";
import { DNS_PORT, FALLBACK_IPV4 } from "./dns.ts";
import { extractSni, readHostname, sniDecidable } from "./peek.ts";
import type { Interceptor } from "./tls-intercept.ts";

export const SIDECAR_UID = 4242;
/** Intercepted destination port → the double's listener for it. */
export const INTERCEPT_PORTS: Record<string, number> = { "80": 15080, "443": 15443, other: 15001 };
const HEAD_TIMEOUT_MS = 10_000;

export type Gateway = { host: string; port: () => number };

function iptables(bin: string, rules: string[][]): void {
  for (const rule of rules) execFileSync(bin, rule, { stdio: ["ignore", "ignore", "inherit"] });
}

/** The namespace's address on the Docker bridge, where the double's listeners are. */
export function bridgeAddress(): string {
  const found = Object.values(networkInterfaces()).flat().find((a) => a && a.family === "IPv4" && !a.internal);
  if (!found) throw new Error("the sidecar has no IPv4 address on the bridge");
  return found.address;
}

export function installInterception(address: string): void {
  const owner = ["-m", "owner", "--uid-owner", String(SIDECAR_UID)];
  const toListener = (port: number) => ["-j", "DNAT", "--to-destination", `${address}:${port}`];
  iptables("iptables", [
    ["-t", "nat", "-A", "OUTPUT", "-p", "tcp", ...owner, "-j", "RETURN"],
    ["-t", "nat", "-A", "OUTPUT", "-p", "tcp", "--dport", "80", ...toListener(INTERCEPT_PORTS["80"])],
    ["-t", "nat", "-A", "OUTPUT", "-p", "tcp", "--dport", "443", ...toListener(INTERCEPT_PORTS["443"])],
    ["-t", "nat", "-A", "OUTPUT", "-p", "tcp", ...toListener(INTERCEPT_PORTS.other)],
    ["-t", "nat", "-A", "OUTPUT", "-p", "udp", "--dport", "53", ...toListener(DNS_PORT)],
    ["-A", "OUTPUT", "-o", "lo", "-j", "ACCEPT"],
    ["-A", "OUTPUT", ...owner, "-j", "ACCEPT"],
    ["-A", "OUTPUT", "-m", "conntrack", "--ctstate", "ESTABLISHED,RELATED", "-j", "ACCEPT"],
    // Whatever was redirected to the double's own listeners (the filter still sees the first route).
    ["-A", "OUTPUT", "-m", "conntrack", "--ctstate", "DNAT", "-j", "ACCEPT"],
    ["-A", "OUTPUT", "-j", "DROP"],
  ]);
  // workerd starts the sidecar with --disable-ipv6 when Docker has no IPv6 (the lab's has none).
  iptables("ip6tables", [
    ["-A", "OUTPUT", "-o", "lo", "-j", "ACCEPT"],
    ["-A", "OUTPUT", "-m", "conntrack", "--ctstate", "ESTABLISHED,RELATED", "-j", "ACCEPT"],
    ["-A", "OUTPUT", "-j", "DROP"],
  ]);
}

/** The `CONNECT` request upstream's `dialHTTPConnect` writes (Go's header order: sorted). */
export function connectRequest(destination: string, source: string, hints: { sni: string; hostname: string }): string {
  const lines = [
    `CONNECT ${destination} HTTP/1.1`,
    `Host: ${destination}`,
    `User-Agent: proxy-everything/0.0.1/${source}`,
    "Connection: close",
    `X-Forwarded-For: ${source}`,
    ...(hints.hostname ? [`X-Hostname: ${hints.hostname}`] : []),
    "X-Proto: tcp",
    ...(hints.sni ? [`X-Tls-Sni: ${hints.sni}`] : []),
  ];
  return `${lines.join("\r\n")}\r\n\r\n`;
}

/** The destination IP the double reports: an IP literal the client named, else the DNS fallback. */
export function destinationIp(hostname: string): string {
  const literal = hostname.replace(/:\d+$/, "");
  return net.isIPv4(literal) ? literal : FALLBACK_IPV4.join(".");
}

/** Reads until SNI (and, on port 80, the Host) can be decided; then hands over what was read. */
function peek(app: net.Socket, port: number, done: (peeked: Buffer, hints: { sni: string; hostname: string } | null) => void): void {
  let bytes = Buffer.alloc(0);
  app.setTimeout(HEAD_TIMEOUT_MS, () => app.resetAndDestroy());
  const onData = (chunk: Buffer) => {
    bytes = Buffer.concat([bytes, chunk]);
    if (!sniDecidable(bytes)) return;
    const sni = extractSni(bytes);
    let hostname = "";
    if (!sni && port === 80) {
      const read = readHostname(bytes);
      if (read.kind === "need-more") return;
      if (read.kind === "error") return finish(null);
      if (read.kind === "host") hostname = read.host;
    }
    finish({ sni, hostname });
  };
  const finish = (hints: { sni: string; hostname: string } | null) => {
    app.off("data", onData);
    app.pause();
    app.setTimeout(0);
    done(bytes, hints);
  };
  app.on("data", onData);
}

function tunnel(app: net.Socket, port: number, peeked: Buffer, hints: { sni: string; hostname: string }, gateway: Gateway, tlsIntercept: Interceptor): void {
  const workerd = net.connect({ host: gateway.host, port: gateway.port(), allowHalfOpen: true });
  workerd.on("error", () => app.resetAndDestroy());
  app.on("error", () => workerd.destroy());
  const destination = `${destinationIp(hints.hostname)}:${port}`;
  workerd.once("connect", () => workerd.write(connectRequest(destination, `${app.remoteAddress}:${app.remotePort}`, hints)));
  let answer = Buffer.alloc(0);
  const onAnswer = (chunk: Buffer) => {
    answer = Buffer.concat([answer, chunk]);
    const end = answer.indexOf("\r\n\r\n");
    if (end < 0) return;
    workerd.off("data", onAnswer);
    workerd.pause();
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(answer.toString("latin1"))?.[1]);
    if (!(status >= 200 && status < 300)) {
      workerd.destroy();
      return app.resetAndDestroy();
    }
    const rest = answer.subarray(end + 4);
    if (hints.sni && status === 200) {
      const plain = tlsIntercept.terminate(app, peeked);
      plain.on("error", () => workerd.destroy());
      workerd.on("close", () => plain.destroy());
      if (rest.length) plain.write(rest);
      plain.pipe(workerd);
      workerd.pipe(plain);
      workerd.resume();
      return;
    }
    if (rest.length) app.write(rest);
    workerd.write(peeked);
    app.pipe(workerd);
    workerd.pipe(app);
    app.resume();
    workerd.resume();
  };
  workerd.on("data", onAnswer);
}

export function startEgressProxy(gateway: Gateway, address: string, tlsIntercept: Interceptor, listeners = INTERCEPT_PORTS): net.Server[] {
  return Object.entries(listeners).map(([port, listenPort]) =>
    net
      .createServer({ allowHalfOpen: true }, (app) => {
        app.on("error", () => app.destroy());
        if (port === "other") return app.resetAndDestroy();
        peek(app, Number(port), (peeked, hints) => (hints ? tunnel(app, Number(port), peeked, hints, gateway, tlsIntercept) : app.resetAndDestroy()));
      })
      .listen(listenPort, address),
  );
}
