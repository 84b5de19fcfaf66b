import { refuseServedFile, serveObject } from "./serve-object.ts";
import { signToken, verifyToken, type TokenSecrets } from "./url-signing.ts";

/**
 * Downloads on a local stack. miniflare serves the bucket's S3 API on the API's own origin and
 * ignores `response-content-disposition`, so a presigned GET there would show a file a client
 * declared `text/html` inline, as a page of the origin where the dashboard keeps its key. So on a
 * local stack a GET URL is the Worker's own (`/local-downloads/<token>/<key>`, a signed, expiring
 * read of exactly one object), served as an attachment, unsniffable, in a sandbox. Production's
 * presigned R2 URLs live on R2's origin, which holds no credential, and honour the disposition.
 */
export const LOCAL_DOWNLOADS_PATH = "/local-downloads/";
const OBJECT_TOKEN_SCOPE = "object";

/** Whether the S3 endpoint is miniflare's (a local stack). */
export function isLocalS3(s3Endpoint: string | undefined): boolean {
  return (
    s3Endpoint !== undefined &&
    URL.canParse(s3Endpoint) &&
    new URL(s3Endpoint).pathname.startsWith("/cdn-cgi/local/r2/")
  );
}

export async function localDownloadUrl(
  secrets: TokenSecrets,
  s3Endpoint: string,
  objectKey: string,
  expiresAtMs: number,
  downloadName?: string,
): Promise<string> {
  const token = await signToken(secrets, "read", OBJECT_TOKEN_SCOPE, objectKey, expiresAtMs);
  const url = new URL(
    `${LOCAL_DOWNLOADS_PATH}${token}/${objectKey.split("/").map(encodeURIComponent).join("/")}`,
    new URL(s3Endpoint).origin,
  );
  if (downloadName) url.searchParams.set("name", downloadName);
  return url.href;
}

/** Serves one object if the token names it: always as an attachment, with ranges (GET and HEAD). */
export async function serveLocalDownload(bucket: R2Bucket, secrets: TokenSecrets, request: Request): Promise<Response> {
  const url = new URL(request.url);
  const [token, ...parts] = url.pathname.slice(LOCAL_DOWNLOADS_PATH.length).split("/");
  const key = parts.map(decodeURIComponent).join("/");
  if (!key || !(await verifyToken(secrets, "read", OBJECT_TOKEN_SCOPE, key, token, Date.now()))) {
    return refuseServedFile(403, "this link is invalid or has expired");
  }
  const name = (url.searchParams.get("name") ?? key.split("/").at(-1) ?? "download").replace(/[^\w.-]/g, "_");
  return serveObject(bucket, key, request, {
    fallbackType: "application/octet-stream",
    headers: { "content-disposition": `attachment; filename="${name}"`, "cache-control": "private, no-store" },
  });
}
