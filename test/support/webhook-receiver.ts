import http from "node:http";

export type ReceivedWebhook = { headers: Record<string, string>; body: string };

/**
 * A loopback webhook receiver for tests. Paths choose its behaviour; the last segment names the
 * test's own mailbox, read back with GET /_received/<mailbox>:
 *   /ok/<box>              → 204
 *   /fail/<n>/<box>        → 500 for the first n requests, then 200
 *   /status/<code>/<box>   → that status (e.g. 500, 302 with a Location)
 *   /slow/<ms>/<box>       → answers after <ms>
 */
export async function startWebhookReceiver() {
  const boxes = new Map<string, ReceivedWebhook[]>();
  const server = http.createServer(async (req, res) => {
    const parts = (req.url ?? "/").split("/").filter(Boolean);
    if (req.method === "GET" && parts[0] === "_received") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(boxes.get(parts[1]) ?? []));
      return;
    }
    let body = "";
    for await (const chunk of req) body += chunk;
    const box = parts[parts.length - 1];
    const list = boxes.get(box) ?? [];
    list.push({ headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])), body });
    boxes.set(box, list);
    const [kind, arg] = parts;
    if (kind === "fail")
      return res.writeHead(list.length <= Number(arg) ? 500 : 200).end("receiver body must never be echoed");
    if (kind === "status")
      return res.writeHead(Number(arg), { location: "http://127.0.0.1:1/elsewhere" }).end("secret receiver text");
    if (kind === "slow") {
      setTimeout(() => res.writeHead(200).end(), Number(arg));
      return;
    }
    res.writeHead(204).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}
