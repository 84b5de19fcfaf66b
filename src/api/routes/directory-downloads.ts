import { Hono } from "hono";
import type { AppEnv } from "../app-env.ts";
import { loadConfig } from "../../config.ts";
import { directoryFileKey, isDirectoryFilePath } from "../../storage/directory-files.ts";
import { verifyToken } from "../../storage/url-signing.ts";
import { contentTypeFor } from "../../storage/content-types.ts";

/**
 * `GET /outputs/<job>/<output>/<token>/<file>`: a directory output's files, no API key (the token
 * is the authorization, like a presigned URL's). Playlists stay unchanged: their relative segment
 * and variant URLs resolve under the same signed prefix. Byte ranges are served for players that
 * ask for them (single-file HLS).
 */
export const directoryDownloadRoutes = new Hono<AppEnv>();

directoryDownloadRoutes.get("/:jobId{[0-9a-f-]{36}}/:name{[A-Za-z0-9_]{1,64}}/:token/:path", async (c) => {
  const { jobId, name, token } = c.req.param();
  // Hono has decoded the path parameter once already; a name is a plain file name, so no second decode.
  const path = c.req.param("path");
  const refuse = (status: 403 | 404, text: string) => c.text(text, status, { "cache-control": "no-store" });
  if (!isDirectoryFilePath(path)) return refuse(404, "no such file");
  if (!(await verifyToken(loadConfig(c.env).storage, "read", jobId, name, token, Date.now()))) {
    return refuse(403, "this link is invalid or has expired: get a fresh one from the job");
  }
  const range = c.req.header("range");
  const object = await c.env.BUCKET.get(directoryFileKey(jobId, name, path), range ? { range: c.req.raw.headers } : {});
  if (!object) return refuse(404, "no such file");
  const headers = new Headers({
    "content-type": object.httpMetadata?.contentType ?? contentTypeFor(path),
    "accept-ranges": "bytes",
    "cache-control": "private, max-age=300",
    etag: object.httpEtag,
    // A job writes these bytes and they are served from the API's own origin: whatever they hold,
    // a browser must not run them as a page (no sniffing, no scripts, no same-origin access).
    "x-content-type-options": "nosniff",
    "content-security-policy": "sandbox; default-src 'none'",
  });
  const r = object.range as { offset?: number; length?: number } | undefined;
  if (range && r && (r.offset !== undefined || r.length !== undefined)) {
    const offset = r.offset ?? 0;
    const length = r.length ?? object.size - offset;
    headers.set("content-range", `bytes ${offset}-${offset + length - 1}/${object.size}`);
    headers.set("content-length", String(length));
    return new Response(object.body, { status: 206, headers });
  }
  headers.set("content-length", String(object.size));
  return new Response(object.body, { status: 200, headers });
});
