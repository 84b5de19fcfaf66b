import http from "node:http";
import https from "node:https";
import type { OpenedFile } from "./output-file.ts";

const UPLOAD_TIMEOUT_MS = 30 * 60_000;

/**
 * Streams an opened output (output-file.ts: read through its descriptor, never by path again) to a
 * PUT URL (presigned, or with a token header); resolves with the byte count once storage accepted it.
 */
export async function uploadFile(
  file: OpenedFile,
  uploadUrl: string,
  headers: Record<string, string>,
  httpsAgent?: https.Agent,
  canceled?: AbortSignal,
): Promise<number> {
  const { size } = file;
  const url = new URL(uploadUrl);
  const client = url.protocol === "https:" ? https : http;
  await new Promise<void>((resolve, reject) => {
    const req = client.request(
      url.href,
      {
        method: "PUT",
        agent: url.protocol === "https:" ? httpsAgent : undefined,
        headers: { ...headers, "content-length": String(size) },
        // A canceled job stops storing at once: an aborted PUT leaves no object behind.
        signal: canceled
          ? AbortSignal.any([AbortSignal.timeout(UPLOAD_TIMEOUT_MS), canceled])
          : AbortSignal.timeout(UPLOAD_TIMEOUT_MS),
      },
      (res) => {
        res.resume();
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) res.on("end", resolve);
        else reject(new Error(`storage answered HTTP ${status}`));
      },
    );
    req.on("error", reject);
    // The size was fstat'ed on this descriptor: send exactly that many bytes of it, from the start.
    const body = size === 0 ? null : file.handle.createReadStream({ start: 0, end: size - 1, autoClose: false });
    if (body) body.on("error", reject).pipe(req);
    else req.end();
  });
  return size;
}
