import { createReadStream, type Stats, statSync } from "node:fs";
import http from "node:http";
import { join, normalize } from "node:path";

/**
 * Serves a folder on loopback (URL inputs in tests) as web servers and object stores do: single byte
 * ranges (RFC 9110: 206, 416 past the end), `Accept-Ranges`, `ETag` and `Last-Modified`. Plus
 * /redirect?to=, /status/<code>, /slow/<ms>/<file>, /trickle (never ends), and origins that
 * misbehave: /noranges/<file> (ignores Range, says nothing of ranges), /changes-after/<n>/<file> (a
 * new ETag from request n+1), /stall-after/<bytes>/<file> (each answer stops after that many bytes
 * and hangs), /redirect-after/<n>/<file>?to= (redirects from request n+1), /reset-at/<n>/<file> (request n
 * cut by a connection reset after 4 KiB of its body), /reset-after/<n>/<file> (every request from n+1 cut
 * so), /drop-at/<n>/<file> (request n's connection reset before any answer). `requests` lists every
 * path (and range) asked for; `sentBytes` counts body bytes written.
 */
export async function startStaticServer(
  dir: string,
  at: { host?: string; port?: number } = {},
): Promise<{ url: string; requests: string[]; sentBytes: () => number; close: () => Promise<void> }> {
  const requests: string[] = [];
  const sent = { bytes: 0 };
  const server = http.createServer(
    staticHandler(
      dir,
      (req) => requests.push(`${req.url ?? "/"}${req.headers.range ? ` ${req.headers.range}` : ""}`),
      sent,
    ),
  );
  const host = at.host ?? "127.0.0.1";
  await new Promise<void>((r) => server.listen(at.port ?? 0, host, r));
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  return {
    url: port === 80 ? `http://${host}` : `http://${host}:${port}`,
    requests,
    sentBytes: () => sent.bytes,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** The request handler of the static server (also served over https by the container suite's test hosts). */
export function staticHandler(
  dir: string,
  onRequest: (req: http.IncomingMessage) => void,
  sent = { bytes: 0 },
): http.RequestListener {
  const seen = new Map<string, number>();
  return (req, res) => {
    onRequest(req);
    const url = new URL(req.url ?? "/", "http://x");
    const nth = (seen.get(url.pathname) ?? 0) + 1;
    seen.set(url.pathname, nth);
    const odd =
      /^\/(noranges|changes-after|stall-after|redirect-after|reset-at|reset-after|drop-at)(?:\/(\d{1,12}))?(\/.+)$/.exec(
        url.pathname,
      );
    if (odd) {
      const [, kind, n, file] = odd;
      if (kind === "noranges") return serveFile(dir, file, undefined, res, sent, { ranges: false });
      if (kind === "changes-after")
        return serveFile(dir, file, req.headers.range, res, sent, { etag: nth > Number(n) ? '"v2"' : '"v1"' });
      if (kind === "stall-after") return serveFile(dir, file, req.headers.range, res, sent, { stallAfter: Number(n) });
      if (kind === "drop-at" && nth === Number(n)) return void req.socket.resetAndDestroy();
      if (kind === "drop-at") return serveFile(dir, file, req.headers.range, res, sent);
      if (kind === "reset-at" || kind === "reset-after") {
        const reset = kind === "reset-at" ? nth === Number(n) : nth > Number(n);
        return serveFile(dir, file, req.headers.range, res, sent, reset ? { resetAfter: 4096 } : {});
      }
      if (nth > Number(n)) return void res.writeHead(302, { location: url.searchParams.get("to") ?? "/" }).end();
      return serveFile(dir, file, req.headers.range, res, sent);
    }
    if (url.pathname === "/redirect") {
      res.writeHead(302, { location: url.searchParams.get("to") ?? "/" }).end();
      return;
    }
    // /slow/<ms>/<file>: the file, after a pause (work that takes a while but ends).
    const slow = /^\/slow\/(\d{1,5})(\/.+)$/.exec(url.pathname);
    if (slow) {
      setTimeout(() => serveFile(dir, slow[2], req.headers.range, res, sent), Number(slow[1]));
      return;
    }
    if (url.pathname === "/trickle") {
      res.writeHead(200, { "content-type": "video/mp4" });
      const timer = setInterval(() => res.write("x"), 200);
      res.on("close", () => clearInterval(timer));
      return;
    }
    const status = /^\/status\/(\d{3})$/.exec(url.pathname);
    if (status) {
      res.writeHead(Number(status[1])).end("nope");
      return;
    }
    serveFile(dir, url.pathname, req.headers.range, res, sent);
  };
}

type Quirks = { ranges?: boolean; etag?: string; stallAfter?: number; resetAfter?: number };

function serveFile(
  dir: string,
  pathname: string,
  range: string | undefined,
  res: http.ServerResponse,
  sent: { bytes: number },
  quirks: Quirks = {},
): void {
  const path = join(dir, normalize(decodeURIComponent(pathname)).replace(/^(\.\.[/\\])+/, ""));
  let stat: Stats;
  try {
    stat = statSync(path);
  } catch {
    return void res.writeHead(404).end();
  }
  const { size, mtime } = stat;
  const validators =
    quirks.ranges === false
      ? {}
      : {
          "accept-ranges": "bytes",
          etag: quirks.etag ?? `"${size}-${mtime.getTime()}"`,
          "last-modified": mtime.toUTCString(),
        };
  const m = quirks.ranges === false ? null : /^bytes=(\d+)-(\d*)$/.exec(range ?? "");
  let [start, end] = [0, size - 1];
  if (m) {
    start = Number(m[1]);
    end = m[2] ? Math.min(Number(m[2]), size - 1) : size - 1;
    if (start >= size || end < start)
      return void res.writeHead(416, { "content-range": `bytes */${size}`, ...validators }).end();
    res.writeHead(206, {
      "content-length": end - start + 1,
      "content-range": `bytes ${start}-${end}/${size}`,
      ...validators,
    });
  } else res.writeHead(200, { "content-length": size, ...validators });
  if (size === 0) return void res.end();
  const cutAfter = quirks.stallAfter ?? quirks.resetAfter;
  const last = cutAfter === undefined ? end : Math.min(end, start + cutAfter - 1);
  const body = createReadStream(path, { start, end: last });
  body.on("data", (c) => (sent.bytes += c.length));
  // A stalling origin sends its bytes, then holds the connection open without another.
  body.pipe(res, { end: quirks.stallAfter === undefined && quirks.resetAfter === undefined });
  // A resetting one sends its bytes, then drops the connection (the reader sees ECONNRESET mid-body).
  if (quirks.resetAfter !== undefined) body.on("end", () => res.socket?.resetAndDestroy());
  res.on("close", () => body.destroy());
}
