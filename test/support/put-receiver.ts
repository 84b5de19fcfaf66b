import { createHash } from "node:crypto";
import http from "node:http";

/**
 * A loopback HTTP server that records PUT bodies and their headers, answering as S3 does (an ETag, the
 * body's MD5 in quotes): where the runner uploads outputs in tests. `/fail…` answers 500, `/deny…` 403
 * with S3's XML error, `/slow…` answers after 10 s.
 */
export async function startPutReceiver() {
  const received = new Map<string, { body: Buffer; contentType: string | undefined; headers: http.IncomingHttpHeaders }>();
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    try {
      for await (const c of req) chunks.push(c as Buffer);
    } catch {
      return; // the uploader gave up mid-body (a canceled job): nothing to record or answer
    }
    if (req.method !== "PUT") return res.writeHead(405).end();
    if (req.url?.startsWith("/fail")) return res.writeHead(500).end();
    if (req.url?.startsWith("/deny")) {
      return res.writeHead(403, { "content-type": "application/xml" }).end('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>');
    }
    // Storage that takes its time to answer: long enough for a test to cancel the upload.
    if (req.url?.startsWith("/slow")) return setTimeout(() => res.writeHead(200).end(), 10_000);
    const body = Buffer.concat(chunks);
    received.set(req.url ?? "", { body, contentType: req.headers["content-type"], headers: req.headers });
    res.writeHead(200, { etag: `"${createHash("md5").update(body).digest("hex")}"` }).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  return { url: `http://127.0.0.1:${port}`, received, close: () => new Promise<void>((r) => server.close(() => r())) };
}
