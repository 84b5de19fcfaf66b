import { readFileSync } from "node:fs";
import http from "node:http";
import type { Socket } from "node:net";

/**
 * A client's storage gone hostile, on loopback: what a destination can do to hold a runner slot.
 * The first path segment picks the behaviour:
 * - `/silent/…` takes the body and never answers;
 * - `/trickle-headers/…` takes the body, then sends its status line and a header a byte at a time;
 * - `/trickle-answer/…` answers 200 with an ETag at once, then its body a byte at a time, never ending;
 * - `/slow-reader/…` takes the body at about 160 KiB/s, then answers 200;
 * - `/redirect/…` answers 307 to itself and trickles the redirect's body;
 * - `/multipart-error/…` takes parts (200 + ETag), answers the completion 200 then S3's error in its
 *   body, and keeps the connection open;
 * - `/multipart-keepalive/…` the same, but the completion answer is spaces forever (S3 sends them while it works);
 * - `/multipart-noresult/…` the same, but the completion answer is 200 with a little whitespace, then ends: no result;
 * - `/late/…` takes the body and answers 200 after LATE_ANSWER_MS (an honest, slowish store).
 */
export const LATE_ANSWER_MS = 700;
const TRICKLE_INTERVAL_MS = 100;
const SLOW_READER_BYTES_PER_SECOND = 160 * 1024;

export async function startHostileDestination() {
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  /** What each open connection last asked for. */
  const modes = new Map<Socket, string>();
  const trickle = (socket: Socket, write: () => void) => {
    const timer = setInterval(write, TRICKLE_INTERVAL_MS);
    socket.on("close", () => clearInterval(timer));
  };
  const drain = async (req: http.IncomingMessage) => {
    for await (const _ of req);
  };
  const server = http.createServer(async (req, res) => {
    requests.push(`${req.method} ${req.url}`);
    modes.set(req.socket, req.url ?? "");
    const mode = (req.url ?? "/").split("/")[1];
    if (mode === "slow-reader") {
      // Reads as fast as SLOW_READER_BYTES_PER_SECOND allows: each chunk pauses the body for its share of time.
      req.on("data", (chunk: Buffer) => {
        req.pause();
        setTimeout(() => req.resume(), (chunk.length * 1000) / SLOW_READER_BYTES_PER_SECOND);
      });
      req.on("end", () => res.writeHead(200, { etag: '"slow"' }).end());
      return;
    }
    await drain(req);
    if (mode === "silent") return;
    if (mode === "trickle-headers") {
      req.socket.write("HTTP/1.1 200 OK\r\n");
      return trickle(req.socket, () => req.socket.write("x"));
    }
    if (mode === "trickle-answer") {
      res.writeHead(200, { etag: '"trickled"' });
      return trickle(req.socket, () => res.write("."));
    }
    if (mode === "redirect") {
      res.writeHead(307, { location: req.url });
      return trickle(req.socket, () => res.write("."));
    }
    if (mode === "late") return void setTimeout(() => res.writeHead(200, { etag: '"late"' }).end(), LATE_ANSWER_MS);
    if (mode === "multipart-noresult") {
      if (req.method === "PUT") return void res.writeHead(200, { etag: '"part"' }).end();
      return void res.writeHead(200, { "content-type": "application/xml" }).end("  \n");
    }
    if (mode === "multipart-error" || mode === "multipart-keepalive") {
      if (req.method === "PUT") return void res.writeHead(200, { etag: '"part"' }).end();
      res.writeHead(200, { "content-type": "application/xml" });
      res.write('<?xml version="1.0" encoding="UTF-8"?>\n');
      if (mode === "multipart-error")
        res.write(
          "<Error><Code>InternalError</Code><Message>We encountered an internal error. Please try again.</Message></Error>",
        );
      return trickle(req.socket, () => res.write(" "));
    }
    res.writeHead(404).end();
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url,
    requests,
    /**
     * What the connections the runner still holds open to this server last asked for (its side of each,
     * read from /proc/net/tcp: a server that stopped reading never sees the runner close its side).
     */
    heldByRunner: () => {
      const port = Number(new URL(url).port);
      const held = new Set(
        readFileSync("/proc/net/tcp", "utf8")
          .split("\n")
          .slice(1)
          .map((l) => l.trim().split(/\s+/))
          .filter((f) => f.length > 3 && f[3] === "01" && parseInt(f[2].split(":")[1], 16) === port)
          .map((f) => parseInt(f[1].split(":")[1], 16)),
      );
      return [...sockets].filter((s) => held.has(s.remotePort ?? -1)).map((s) => modes.get(s) ?? "(no request)");
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
