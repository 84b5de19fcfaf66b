import http from "node:http";

/** A loopback HTTP server that records PUT bodies: where the runner uploads outputs in runner tests (`/fail…` answers 500, `/slow…` answers after 10 s). */
export async function startPutReceiver() {
  const received = new Map<string, { body: Buffer; contentType: string | undefined }>();
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    try {
      for await (const c of req) chunks.push(c as Buffer);
    } catch {
      return; // the uploader gave up mid-body (a canceled job): nothing to record or answer
    }
    if (req.method !== "PUT") return res.writeHead(405).end();
    if (req.url?.startsWith("/fail")) return res.writeHead(500).end();
    // Storage that takes its time to answer: long enough for a test to cancel the upload.
    if (req.url?.startsWith("/slow")) return setTimeout(() => res.writeHead(200).end(), 10_000);
    received.set(req.url ?? "", { body: Buffer.concat(chunks), contentType: req.headers["content-type"] });
    res.writeHead(200).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  return { url: `http://127.0.0.1:${port}`, received, close: () => new Promise<void>((r) => server.close(() => r())) };
}
