import { createReadStream, statSync } from "node:fs";
import http from "node:http";
import { join, normalize } from "node:path";

/**
 * An origin as a user's storage is: files served with single byte ranges (206, ETag,
 * Accept-Ranges), each answer after a first-byte delay, every body sharing one link of capped
 * bandwidth (a token bucket), on loopback. `sentBytes` counts body bytes put on the link.
 */
export async function startThrottledOrigin(dir: string, opts: { bytesPerSecond: number; firstByteMs: number }) {
  let sent = 0;
  let available = 0;
  let last = performance.now();
  // Tokens refill continuously; a writer waits for enough tokens for its chunk.
  const take = async (bytes: number) => {
    for (;;) {
      const now = performance.now();
      available = Math.min(opts.bytesPerSecond / 10, available + ((now - last) / 1000) * opts.bytesPerSecond);
      last = now;
      if (available >= bytes) {
        available -= bytes;
        return;
      }
      await new Promise((r) => setTimeout(r, Math.max(1, ((bytes - available) / opts.bytesPerSecond) * 1000)));
    }
  };
  const server = http.createServer((req, res) => {
    const path = join(dir, normalize(decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname)));
    let size: number;
    try {
      size = statSync(path).size;
    } catch {
      return void res.writeHead(404).end();
    }
    const m = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? "");
    const start = m ? Number(m[1]) : 0;
    const end = m?.[2] ? Math.min(Number(m[2]), size - 1) : size - 1;
    const validators = { "accept-ranges": "bytes", etag: `"${size}"`, "last-modified": new Date(0).toUTCString() };
    setTimeout(async () => {
      if (start >= size) return void res.writeHead(416, { "content-range": `bytes */${size}`, ...validators }).end();
      res.writeHead(m ? 206 : 200, {
        "content-length": end - start + 1,
        ...(m ? { "content-range": `bytes ${start}-${end}/${size}` } : {}),
        ...validators,
      });
      const body = createReadStream(path, { start, end, highWaterMark: 64 * 1024 });
      res.on("close", () => body.destroy());
      try {
        for await (const chunk of body as AsyncIterable<Buffer>) {
          await take(chunk.length);
          if (res.destroyed) return;
          sent += chunk.length;
          if (!res.write(chunk)) {
            await new Promise<void>((resolve) => {
              const done = () => {
                res.off("drain", done);
                res.off("close", done);
                resolve();
              };
              res.on("drain", done).on("close", done);
            });
          }
          if (res.destroyed) return;
        }
      } catch {
        return; // the reader went away mid-body (ffmpeg seeks): its stream was closed under the loop
      }
      res.end();
    }, opts.firstByteMs);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    sentBytes: () => sent,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
