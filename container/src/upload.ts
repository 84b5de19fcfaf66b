import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import http from "node:http";
import https from "node:https";

const UPLOAD_TIMEOUT_MS = 30 * 60_000;

/** Streams a file to a PUT URL (presigned, or with a token header); resolves with the byte count once storage accepted it. */
export async function uploadFile(path: string, uploadUrl: string, headers: Record<string, string>, httpsAgent?: https.Agent, canceled?: AbortSignal): Promise<number> {
  const { size } = await stat(path);
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
        signal: canceled ? AbortSignal.any([AbortSignal.timeout(UPLOAD_TIMEOUT_MS), canceled]) : AbortSignal.timeout(UPLOAD_TIMEOUT_MS),
      },
      (res) => {
        res.resume();
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) res.on("end", resolve);
        else reject(new Error(`storage answered HTTP ${status}`));
      },
    );
    req.on("error", reject);
    createReadStream(path).on("error", reject).pipe(req);
  });
  return size;
}
