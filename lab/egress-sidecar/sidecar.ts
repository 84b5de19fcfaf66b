// TEST DOUBLE of Cloudflare's network sidecar for `wrangler dev` containers (the real one,
// cloudflare/proxy-everything, comes from Docker Hub, out of reach here). It speaks the protocol
// workerd's container client expects of it:
// - ingress on --http-ingress-address: `CONNECT` with `X-Dst-Addr: ip:port` opens a raw tunnel to
//   that port inside the shared network namespace (400 while nothing listens); `GET /ca` serves
//   the interception CA (PEM); `PUT /egress` `{ "port": N }` says where workerd's egress listener is;
// - egress: every TCP connection the app container opens is redirected here and handed to workerd
//   as `CONNECT ip:port` + `X-Hostname` (see egress.ts), so the Worker's outbound handler decides.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { bridgeAddress, installInterception, SIDECAR_UID, startEgressProxy, type EgressTarget } from "./egress.ts";
import { startDns } from "./dns.ts";

const CA_DIR = "/ca";

function flag(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

/** A fresh CA per sidecar, as the real one has; the double never signs with it (plain HTTP only). */
function makeCa(): string {
  mkdirSync(CA_DIR, { recursive: true });
  execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "30",
    "-keyout", `${CA_DIR}/ca.key`, "-out", `${CA_DIR}/ca.crt`, "-subj", "/CN=ffjobs lab egress sidecar double CA",
    "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"], { stdio: "ignore" });
  return readFileSync(`${CA_DIR}/ca.crt`, "utf8");
}

/** workerd's egress listener, as the container reaches it: host.docker.internal from /etc/hosts. */
function gatewayAddress(): string {
  const line = readFileSync("/etc/hosts", "utf8").split("\n").find((l) => /\shost\.docker\.internal(\s|$)/.test(l));
  if (!line) throw new Error("host.docker.internal is not in /etc/hosts (workerd adds it with host-gateway)");
  return line.trim().split(/\s+/)[0];
}

const ca = makeCa();
const target: EgressTarget = { host: gatewayAddress(), port: Number(flag("http-egress-port") ?? 0) };
const address = bridgeAddress();
installInterception(address);
startEgressProxy(target, address);
startDns(address);

const control = http.createServer((req, res) => {
  if (req.method === "GET" && req.url === "/ca") return res.writeHead(200, { "content-type": "application/x-pem-file" }).end(ca);
  if (req.method === "PUT" && req.url === "/egress") {
    let body = "";
    req.on("data", (c: Buffer) => (body += c));
    req.on("end", () => {
      const port = Number((JSON.parse(body || "{}") as { port?: unknown }).port);
      if (!Number.isInteger(port) || port < 1 || port > 65535) return res.writeHead(400).end("bad port");
      target.port = port;
      res.writeHead(204).end();
    });
    return;
  }
  res.writeHead(405).end();
});

// Ingress: workerd → a port of the app container (the runner), through a raw tunnel.
control.on("connect", (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
  const dst = /^(\d+\.\d+\.\d+\.\d+):(\d+)$/.exec(String(req.headers["x-dst-addr"] ?? ""));
  if (!dst) return client.end("HTTP/1.1 400 Bad Request\r\n\r\n");
  const upstream = net.connect({ host: dst[1], port: Number(dst[2]), allowHalfOpen: true });
  upstream.once("error", () => (upstream.readyState === "opening" ? client.end("HTTP/1.1 400 Bad Request\r\n\r\n") : client.destroy()));
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
  // Everything above needed root (iptables); what the sidecar does from now on does not. Its own
  // connections are exempt from interception by this uid.
  process.setgid!(SIDECAR_UID);
  process.setuid!(SIDECAR_UID);
  console.log(`egress sidecar double: ingress on ${host}:${port}, egress via ${target.host}`);
});
