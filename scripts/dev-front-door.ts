import http from "node:http";

/**
 * The local stack's public port: a plain HTTP relay to `wrangler dev` on a private one, refusing the
 * endpoints miniflare adds to every local Worker's origin (found by an attack pass):
 * `/cdn-cgi/local/r2/public/…` serves any object of a local bucket with no credential, inline, with
 * its stored type (an uploaded page would run as this origin, where the dashboard keeps its key), and
 * the explorer (`/cdn-cgi/local/explorer/…`) runs SQL on D1. Production has neither. Only the S3
 * API (presigned URLs, signed with this run's own credentials) and the Worker's routes pass.
 */
const ALLOWED_CDN_CGI = ["/cdn-cgi/local/r2/s3/"];

/**
 * Headers that turn a presigned PUT into a server-side copy of another object (F1): the S3 API runs
 * `x-amz-copy-source` even when it was not signed, so an upload URL would copy any object of the
 * bucket, another account's outputs included, into the holder's upload. The service never copies.
 */
const COPY_HEADERS = [
  "x-amz-copy-source",
  "x-amz-copy-source-range",
  "x-amz-metadata-directive",
  "x-amz-tagging-directive",
];

export function refusedHeaders(headers: http.IncomingHttpHeaders): string | null {
  return COPY_HEADERS.find((h) => headers[h] !== undefined) ?? null;
}

export function refusedPath(path: string): boolean {
  // Decoded and normalized as miniflare will see it, so %2F or "/./" spellings cannot slip past.
  let pathname: string;
  try {
    pathname = new URL(path, "http://x").pathname;
  } catch {
    return true;
  }
  const decoded = safeDecode(pathname).toLowerCase();
  return decoded.startsWith("/cdn-cgi/") && !ALLOWED_CDN_CGI.some((p) => decoded.startsWith(p));
}

const safeDecode = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

const S3_PATH = "/cdn-cgi/local/r2/s3/";
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * miniflare answers its storage endpoint only to a loopback Host (its guard against DNS rebinding),
 * while a stack served by name (PUBLIC_HOST: the container suite's, as production's storage is a
 * host of its own) signs its URLs for that name. Such a request reaches miniflare with a loopback
 * Host and the name it was signed for in `MF-Original-Hostname`, which miniflare's S3 endpoint
 * verifies the signature against: what its own upstream mode sends. Clients' `mf-*` headers never pass.
 */
export function relayedHeaders(path: string, headers: http.IncomingHttpHeaders): http.IncomingHttpHeaders {
  const out = Object.fromEntries(Object.entries(headers).filter(([name]) => !name.startsWith("mf-")));
  const host = headers.host ?? "";
  if (!path.startsWith(S3_PATH) || LOOPBACK_HOSTS.has(host.replace(/:\d+$/, ""))) return out;
  return { ...out, host: "127.0.0.1", "mf-original-hostname": host };
}

/** Listens on host:port and relays to host:innerPort, streaming both ways (event streams included). */
export function startFrontDoor(host: string, port: number, innerPort: number): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    if (refusedPath(req.url ?? "/")) {
      res.writeHead(404, { "content-type": "text/plain" }).end("Not found\n");
      return;
    }
    const header = refusedHeaders(req.headers);
    if (header) {
      res
        .writeHead(403, { "content-type": "text/plain" })
        .end(`${header} is not accepted: storage URLs read or write one object only\n`);
      return;
    }
    const upstream = http.request(
      {
        host,
        port: innerPort,
        method: req.method,
        path: req.url,
        headers: relayedHeaders(req.url ?? "/", req.headers),
      },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.rawHeaders);
        r.pipe(res);
      },
    );
    upstream.on("error", () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
    res.on("close", () => upstream.destroy());
    req.pipe(upstream);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve(server));
  });
}
