// The egress half of the sidecar double: every TCP connection from the app container is redirected
// (iptables DNAT to the namespace's own bridge address; REDIRECT to 127.0.0.1 drops packets that were
// headed off-host, which carry a non-loopback source) to a listener there, which reads the HTTP request head to learn where it was
// going (the Host header: this double handles plain HTTP only) and hands it to workerd as
// `CONNECT ip:port` with `X-Hostname` on port 80, as the real sidecar does. workerd answers 200
// (its outbound handler serves the tunnel as HTTP) or 202 (pass-through, which it closes while the
// container has no internet). Anything that is not HTTP, names no IP address, or is refused is
// reset. DNS queries go to the double's own answerer (dns.ts); every other packet leaving the
// namespace (UDP, ICMP, IPv6) is dropped.
import { execFileSync } from "node:child_process";
import net from "node:net";
import { networkInterfaces } from "node:os";
import { DNS_PORT, FAKE_ADDRESS } from "./dns.ts";

export const SIDECAR_UID = 4242;
const INTERCEPT_PORT = 15001;
const MAX_HEAD_BYTES = 64 * 1024;
const HEAD_TIMEOUT_MS = 10_000;

export type EgressTarget = { host: string; port: number };

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
  iptables("iptables", [
    ["-t", "nat", "-A", "OUTPUT", "-p", "tcp", ...owner, "-j", "RETURN"],
    ["-t", "nat", "-A", "OUTPUT", "-p", "tcp", "-j", "DNAT", "--to-destination", `${address}:${INTERCEPT_PORT}`],
    ["-t", "nat", "-A", "OUTPUT", "-p", "udp", "--dport", "53", "-j", "DNAT", "--to-destination", `${address}:${DNS_PORT}`],
    ["-A", "OUTPUT", "-o", "lo", "-j", "ACCEPT"],
    ["-A", "OUTPUT", ...owner, "-j", "ACCEPT"],
    ["-A", "OUTPUT", "-m", "conntrack", "--ctstate", "ESTABLISHED,RELATED", "-j", "ACCEPT"],
    // Whatever was redirected to the double's own listeners (the filter still sees the first route).
    ["-A", "OUTPUT", "-m", "conntrack", "--ctstate", "DNAT", "-j", "ACCEPT"],
    ["-A", "OUTPUT", "-j", "DROP"],
  ]);
  iptables("ip6tables", [
    ["-A", "OUTPUT", "-o", "lo", "-j", "ACCEPT"],
    ["-A", "OUTPUT", "-m", "conntrack", "--ctstate", "ESTABLISHED,RELATED", "-j", "ACCEPT"],
    ["-A", "OUTPUT", "-j", "DROP"],
  ]);
}

/** Where an HTTP request head says it is going (its Host header), or null. */
export function destinationOf(head: string): { ip: string; port: number; hostHeader: string } | null {
  const host = /^host:[ \t]*([^\r\n]+)/im.exec(head)?.[1].trim();
  if (!host || !/^[A-Z]+ \S+ HTTP\/1\.[01]\r\n/.test(head)) return null;
  const m = /^(\d+\.\d+\.\d+\.\d+|[a-z0-9.-]+)(?::(\d+))?$/i.exec(host);
  if (!m) return null;
  // A name was resolved by dns.ts to the one made-up address.
  const ip = /^[\d.]+$/.test(m[1]) ? m[1] : FAKE_ADDRESS.join(".");
  return { ip, port: m[2] ? Number(m[2]) : 80, hostHeader: host };
}

function handle(app: net.Socket, target: EgressTarget): void {
  let head = Buffer.alloc(0);
  app.setTimeout(HEAD_TIMEOUT_MS, () => app.resetAndDestroy());
  app.on("error", () => app.destroy());
  const onData = (chunk: Buffer) => {
    head = Buffer.concat([head, chunk]);
    const text = head.toString("latin1");
    if (!text.includes("\r\n\r\n")) {
      if (head.length > MAX_HEAD_BYTES) app.resetAndDestroy();
      return;
    }
    app.off("data", onData);
    app.pause();
    app.setTimeout(0);
    const dst = destinationOf(text);
    if (!dst) return app.resetAndDestroy();
    tunnel(app, head, dst, target);
  };
  app.on("data", onData);
}

function tunnel(app: net.Socket, peeked: Buffer, dst: NonNullable<ReturnType<typeof destinationOf>>, target: EgressTarget): void {
  const workerd = net.connect({ host: target.host, port: target.port, allowHalfOpen: true });
  workerd.on("error", () => app.resetAndDestroy());
  app.on("error", () => workerd.destroy());
  workerd.once("connect", () => {
    const hostname = dst.port === 80 ? `X-Hostname: ${dst.hostHeader}\r\n` : "";
    workerd.write(`CONNECT ${dst.ip}:${dst.port} HTTP/1.1\r\nHost: ${dst.ip}:${dst.port}\r\nConnection: close\r\nX-Proto: tcp\r\n${hostname}\r\n`);
  });
  let answer = Buffer.alloc(0);
  const onAnswer = (chunk: Buffer) => {
    answer = Buffer.concat([answer, chunk]);
    const end = answer.indexOf("\r\n\r\n");
    if (end < 0) return;
    workerd.off("data", onAnswer);
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(answer.toString("latin1"))?.[1]);
    if (status !== 200 && status !== 202) {
      workerd.destroy();
      return app.resetAndDestroy();
    }
    const rest = answer.subarray(end + 4);
    if (rest.length) app.write(rest);
    workerd.write(peeked);
    app.pipe(workerd);
    workerd.pipe(app);
    app.resume();
  };
  workerd.on("data", onAnswer);
}

export function startEgressProxy(target: EgressTarget, address: string): net.Server {
  return net.createServer({ allowHalfOpen: true }, (app) => handle(app, target)).listen(INTERCEPT_PORT, address);
}
