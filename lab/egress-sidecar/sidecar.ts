// TEST DOUBLE of Cloudflare's network sidecar for `wrangler dev` containers (the real one,
// cloudflare/proxy-everything, comes from Docker Hub, out of reach here). It speaks the protocol
// workerd's container client expects of it:
// - ingress on --http-ingress-address: `CONNECT` with `X-Dst-Addr: ip:port` opens a raw tunnel to
//   that port inside the shared network namespace (400 while nothing listens); `GET /ca` serves
//   the interception CA (PEM); `PUT /egress` `{ port, internet: { enabled }, dns: { allowHostnames } }`
//   configures it (egress-config.ts);
// - egress: every TCP connection the app container opens, except to the ranges upstream leaves alone
//   (interception.ts), is intercepted by TPROXY and handed to workerd as `CONNECT ip:port` (its real
//   destination) + `X-Tls-Sni` / `X-Hostname` (egress.ts), TLS terminated with a leaf of its own CA
//   when workerd asks for plaintext (tls-intercept.ts), so the Worker's outbound handler decides;
//   DNS is answered as the platform answers it (dns.ts), in the mode SIDECAR_DNS_MODE names.
//   Upstream files mirrored: main.go, dns.go, tls.go, sni.go of cloudflare/proxy-everything
//   (lab/README.md).
import { chownSync, readFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { applyEgressUpdate, initialConfig } from "./egress-config.ts";
import { networkInterfaces } from "node:os";
import { SIDECAR_UID, startEgressProxy } from "./egress.ts";
import { DNS_MODES, DNS_PORT, startDns, type DnsMode } from "./dns.ts";
import { deviceCidrsV4, ignoredRangesV4, installInterception, interceptionCommands } from "./interception.ts";
import { startInterceptor } from "./tls-intercept.ts";

const CA_DIR = "/ca";

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

/** The namespace's address on the Docker bridge, where the double's DNS listens. */
function bridgeAddress(): string {
  const found = Object.values(networkInterfaces())
    .flat()
    .find((a) => a && a.family === "IPv4" && !a.internal);
  if (!found) throw new Error("the sidecar has no IPv4 address on the bridge");
  return found.address;
}

/** workerd's egress listener, as the container reaches it: host.docker.internal from /etc/hosts. */
function gatewayAddress(): string {
  const line = readFileSync("/etc/hosts", "utf8")
    .split("\n")
    .find((l) => /\shost\.docker\.internal(\s|$)/.test(l));
  if (!line) throw new Error("host.docker.internal is not in /etc/hosts (workerd adds it with host-gateway)");
  return line.trim().split(/\s+/)[0];
}

// workerd passes --dns-enabled and --tls-intercept; the double always does both, and says so if
// a workerd ever stops asking (its behaviour would then differ from the platform's).
for (const wanted of ["--dns-enabled", "--tls-intercept"]) {
  if (!process.argv.includes(wanted))
    console.warn(`egress sidecar double: workerd did not pass ${wanted}; the double does it anyway`);
}
// workerd passes --disable-ipv6 when Docker has no IPv6 (the lab's has none): upstream then touches
// no IPv6 traffic. With IPv6 on it would intercept it too, which this double cannot: it refuses to run.
if (!process.argv.includes("--disable-ipv6"))
  throw new Error(
    "egress sidecar double: intercepting IPv6 is not implemented; run Docker without IPv6 (workerd then passes --disable-ipv6)",
  );
const dnsMode = (process.env.SIDECAR_DNS_MODE || "placeholder") as DnsMode;
if (!DNS_MODES.includes(dnsMode))
  throw new Error(`egress sidecar double: SIDECAR_DNS_MODE must be one of ${DNS_MODES.join(", ")}`);
const listenFd = Number(process.env.TPROXY_LISTEN_FD);
if (!Number.isInteger(listenFd))
  throw new Error("egress sidecar double: start it through transparent-listen.pl (no TPROXY_LISTEN_FD)");

const config = initialConfig(Number(flag("http-egress-port") ?? 49121));
const interceptor = startInterceptor(CA_DIR);
// Leaves are minted after the double drops root (below).
chownSync(CA_DIR, SIDECAR_UID, SIDECAR_UID);
for (const file of ["ca.crt", "ca.key"]) chownSync(`${CA_DIR}/${file}`, SIDECAR_UID, SIDECAR_UID);
const address = bridgeAddress();
const egressIp = flag("gateway-ip") || gatewayAddress();
const ignored = ignoredRangesV4(flag("docker-gateway-cidr") ?? "172.17.0.0/16", egressIp, deviceCidrsV4());
installInterception(interceptionCommands(ignored, { address, port: DNS_PORT }));
startEgressProxy({ host: egressIp, port: () => config.port }, { fd: listenFd }, interceptor);
startDns(address, config, dnsMode);

const control = http.createServer((req, res) => {
  if (req.method === "GET" && req.url === "/ca")
    return res.writeHead(200, { "content-type": "application/x-pem-file" }).end(interceptor.caPem);
  if (req.method === "PUT" && req.url === "/egress") {
    let body = "";
    req.on("data", (c: Buffer) => (body += c));
    req.on("end", () => res.writeHead(applyEgressUpdate(config, body)).end());
    return;
  }
  // Upstream answers 404 for other paths of GET and PUT.
  res.writeHead(req.method === "GET" || req.method === "PUT" ? 404 : 405).end();
});

// Ingress: workerd → a port of the app container (the runner), through a raw tunnel.
control.on("connect", (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
  const dst = /^(\d+\.\d+\.\d+\.\d+):(\d+)$/.exec(String(req.headers["x-dst-addr"] ?? ""));
  if (!dst) return client.end("HTTP/1.1 400 Bad Request\r\n\r\n");
  const upstream = net.connect({ host: dst[1], port: Number(dst[2]), allowHalfOpen: true });
  upstream.once("error", () =>
    upstream.readyState === "opening" ? client.end("HTTP/1.1 400 Bad Request\r\n\r\n") : client.destroy(),
  );
  client.on("error", () => upstream.destroy());
  upstream.once("connect", () => {
    client.write("HTTP/1.1 200 OK\r\n\r\n");
    if (head.length) upstream.write(head);
    client.pipe(upstream);
    upstream.pipe(client);
  });
});

const [host, port] = (flag("http-ingress-address") ?? "0.0.0.0:39001").split(":");
control.listen(Number(port), host, () => {
  // Everything above needed root (iptables, the transparent listener); what the sidecar does from
  // now on does not. Its own connections go to ranges the interception leaves alone.
  process.setgid!(SIDECAR_UID);
  process.setuid!(SIDECAR_UID);
  console.log(
    `egress sidecar double: ingress on ${host}:${port}, egress via ${egressIp}:${config.port}, DNS ${dnsMode}, leaving alone ${ignored.join(" ")}`,
  );
});
