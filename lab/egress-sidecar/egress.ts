// The egress half of the sidecar double, mirroring cloudflare/proxy-everything main.go
// (`proxy.run`, `peekSNI`, `readHostname`, `dialHTTPConnect`): every TCP connection the app
// container opens, on any port, arrives at one transparent listener (interception.ts), whose
// accepted socket's local address is the connection's real destination. The double peeks the TLS
// SNI (any port; at most what a 4 KiB buffer holds) or, on port 80 without SNI, the HTTP Host, and
// opens `CONNECT ip:port` to workerd's egress listener with `X-Tls-Sni` / `X-Hostname`. workerd
// answers 200 (its outbound handler serves the tunnel as HTTP; for SNI the double first terminates
// TLS with a leaf of its own CA), 202 (pass bytes through: workerd closes them while the container
// has no internet, which is how a port it does not carry ends), 400 (refused) or another status
// (error): on an error the container's connection is reset. Like upstream, nothing times out.
import net from "node:net";
import { extractSni, readHostname, sniDecidable, SNI_PEEK_BYTES } from "./peek.ts";
import type { Interceptor } from "./tls-intercept.ts";

export const SIDECAR_UID = 4242;

export type Gateway = { host: string; port: () => number };
export type Destination = { address: string; port: number };
type Hints = { sni: string; hostname: string };

/** The connection's real destination: with TPROXY, the accepted socket's own address. */
export const socketDestination = (app: net.Socket): Destination => ({
  address: app.localAddress ?? "",
  port: app.localPort ?? 0,
});

/** The `CONNECT` request upstream's `dialHTTPConnect` writes (Go's header order: sorted). */
export function connectRequest(destination: string, source: string, hints: Hints): string {
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

/**
 * Reads until the hints are decided, then hands over what was read. Upstream blocks on the first
 * byte and has no deadline; a connection that ends first gets no SNI, and on port 80 is reset
 * (`readHostname` fails on EOF), elsewhere tunnelled without hints.
 */
function peek(app: net.Socket, port: number, done: (peeked: Buffer, hints: Hints | null) => void): void {
  let bytes = Buffer.alloc(0);
  let sni: string | null = null;
  const decide = (ended: boolean) => {
    if (sni === null) {
      if (!ended && !sniDecidable(bytes)) return;
      sni = extractSni(bytes.subarray(0, SNI_PEEK_BYTES));
    }
    if (sni || port !== 80) return finish({ sni, hostname: "" });
    const read = readHostname(bytes);
    if (read.kind === "need-more") return ended ? finish(null) : undefined;
    if (read.kind === "error") return finish(null);
    finish({ sni: "", hostname: read.kind === "host" ? read.host : "" });
  };
  const onData = (chunk: Buffer) => {
    bytes = Buffer.concat([bytes, chunk]);
    decide(false);
  };
  const onEnd = () => decide(true);
  const finish = (hints: Hints | null) => {
    app.off("data", onData);
    app.off("end", onEnd);
    app.pause();
    done(bytes, hints);
  };
  app.on("data", onData);
  app.on("end", onEnd);
}

function tunnel(
  app: net.Socket,
  destination: Destination,
  peeked: Buffer,
  hints: Hints,
  gateway: Gateway,
  tlsIntercept: Interceptor,
): void {
  const workerd = net.connect({ host: gateway.host, port: gateway.port(), allowHalfOpen: true });
  workerd.on("error", () => app.resetAndDestroy());
  app.on("error", () => workerd.destroy());
  workerd.once("connect", () =>
    workerd.write(
      connectRequest(`${destination.address}:${destination.port}`, `${app.remoteAddress}:${app.remotePort}`, hints),
    ),
  );
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

/**
 * The transparent listener (an inherited descriptor in the sidecar, a plain port in unit tests);
 * `destinationOf` is the socket's own address under TPROXY, and what a test says it is otherwise.
 */
export function startEgressProxy(
  gateway: Gateway,
  listen: { fd: number } | { host: string; port: number },
  tlsIntercept: Interceptor,
  destinationOf: (app: net.Socket) => Destination = socketDestination,
): net.Server {
  return net
    .createServer({ allowHalfOpen: true }, (app) => {
      app.on("error", () => app.destroy());
      const destination = destinationOf(app);
      peek(app, destination.port, (peeked, hints) =>
        hints ? tunnel(app, destination, peeked, hints, gateway, tlsIntercept) : app.resetAndDestroy(),
      );
    })
    .listen(listen);
}
