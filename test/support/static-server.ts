import { createReadStream, statSync } from "node:fs";
import http from "node:http";
import { join, normalize } from "node:path";

/**
 * Serves a folder on loopback (URL inputs in tests), plus /redirect?to=, /status/<code>, /slow/<ms>/<file> and /trickle
 * (never ends). `requests` lists every path asked for.
 */
export async function startStaticServer(
  dir: string,
  at: { host?: string; port?: number } = {},
): Promise<{ url: string; requests: string[]; close: () => Promise<void> }> {
  const requests: string[] = [];
  const server = http.createServer(staticHandler(dir, (req) => requests.push(req.url ?? "/")));
  const host = at.host ?? "127.0.0.1";
  await new Promise<void>((r) => server.listen(at.port ?? 0, host, r));
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  return {
    url: port === 80 ? `http://${host}` : `http://${host}:${port}`,
    requests,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** The request handler of the static server (also served over https by the container suite's test hosts). */
export function staticHandler(dir: string, onRequest: (req: http.IncomingMessage) => void): http.RequestListener {
  return (req, res) => {
    onRequest(req);
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname === "/redirect") {
      res.writeHead(302, { location: url.searchParams.get("to") ?? "/" }).end();
      return;
    }
    // /slow/<ms>/<file>: the file, after a pause (work that takes a while but ends).
    const slow = /^\/slow\/(\d{1,5})(\/.+)$/.exec(url.pathname);
    if (slow) {
      setTimeout(() => serveFile(dir, slow[2], res), Number(slow[1]));
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
    serveFile(dir, url.pathname, res);
  };
}

function serveFile(dir: string, pathname: string, res: http.ServerResponse): void {
  const path = join(dir, normalize(decodeURIComponent(pathname)).replace(/^(\.\.[/\\])+/, ""));
  try {
    const { size } = statSync(path);
    res.writeHead(200, { "content-length": size });
    createReadStream(path).pipe(res);
  } catch {
    res.writeHead(404).end();
  }
}
