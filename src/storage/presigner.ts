import { AwsClient } from "aws4fetch";
import type { Config } from "../config.ts";
import { isLocalS3, localDownloadUrl } from "./local-downloads.ts";

export type PresignedUrl = { url: string; expiresAt: string };

/** Presigned S3-style URLs for R2 objects: clients and the runner move bytes without the Worker. */
export interface Presigner {
  /**
   * `query`: signed into the URL too (a multipart part's `partNumber` and `uploadId`). `headers`: signed
   * headers the request must then carry, as given (an upload's `If-None-Match: *`).
   */
  presign(
    method: "GET" | "PUT",
    objectKey: string,
    ttlSeconds: number,
    opts?: { downloadName?: string; query?: Record<string, string>; headers?: Record<string, string> },
  ): Promise<PresignedUrl>;
}

export function createPresigner(storage: Config["storage"], now: () => Date = () => new Date()): Presigner {
  const { s3Endpoint, accessKeyId, secretAccessKey, bucketName } = storage;
  if (!s3Endpoint || !accessKeyId || !secretAccessKey) {
    throw new Error("R2_S3_ENDPOINT, R2_ACCESS_KEY_ID and R2_SECRET_ACCESS_KEY must be set to issue storage URLs");
  }
  const client = new AwsClient({ accessKeyId, secretAccessKey, service: "s3", region: "auto" });
  const base = s3Endpoint.replace(/\/+$/, "");
  return {
    async presign(method, objectKey, ttlSeconds, opts = {}) {
      if (method === "GET" && isLocalS3(s3Endpoint)) {
        const expiresAtMs = now().getTime() + ttlSeconds * 1000;
        return {
          url: await localDownloadUrl(storage, s3Endpoint, objectKey, expiresAtMs, opts.downloadName),
          expiresAt: new Date(expiresAtMs).toISOString(),
        };
      }
      const url = new URL(`${base}/${bucketName}/${objectKey.split("/").map(encodeURIComponent).join("/")}`);
      for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, v);
      url.searchParams.set("X-Amz-Expires", String(ttlSeconds));
      if (opts.downloadName) {
        url.searchParams.set("response-content-disposition", `attachment; filename="${opts.downloadName}"`);
      }
      const signedAt = now();
      const signed = await client.sign(url.toString(), {
        method,
        headers: opts.headers,
        aws: { signQuery: true, datetime: signedAt.toISOString().replace(/[:-]|\.\d{3}/g, "") },
      });
      return { url: signed.url, expiresAt: new Date(signedAt.getTime() + ttlSeconds * 1000).toISOString() };
    },
  };
}

export const objectKeys = {
  upload: (assetId: string, fileName: string) => `uploads/${assetId}/${fileName}`,
  output: (jobId: string, outputName: string, fileName: string) => `outputs/${jobId}/${outputName}/${fileName}`,
  /** A split job's work files (its segments, its audio): deleted when the job ends. */
  work: (jobId: string, fileName: string) => `${WORK_PREFIX}${jobId}/${fileName}`,
};
export const WORK_PREFIX = "work/";
