import { Hono } from "hono";
import type { AppEnv } from "../app-env.ts";
import { loadConfig } from "../../config.ts";
import { directoryFileKey, isDirectoryFilePath } from "../../storage/directory-files.ts";
import { verifyToken } from "../../storage/url-signing.ts";
import { contentTypeFor } from "../../storage/content-types.ts";
import { answerRange } from "../../storage/byte-range.ts";

/**
 * `GET /outputs/<job>/<output>/<token>/<file>`: a directory output's files, no API key (the token
 * is the authorization, like a presigned URL's). Playlists stay unchanged: their relative segment
 * and variant URLs resolve under the same signed prefix. Byte ranges are served for players that
 * ask for them (single-file HLS).
 *
 * Readable from any origin (CORS `*`): web players (hls.js, Shaka, video.js) fetch playlists and
 * segments with XHR from the page's own origin, and the link carries its own authorization (no
 * cookies, no API key), so allowing every origin gives a page nothing the link does not.
 */
export const directoryDownloadRoutes = new Hono<AppEnv>();

const FILE_PATH = "/:jobId{[0-9a-f-]{36}}/:name{[A-Za-z0-9_]{1,64}}/:token/:path";
const CORS_HEADERS = {
  "access-control-allow-origin": "*",
  // What a player reads of an answer besides its body: the length, the range it got, the validator.
  "access-control-expose-headers": "content-length, content-range, accept-ranges, etag",
};

directoryDownloadRoutes.use(FILE_PATH, async (c, next) => {
  await next();
  for (const [name, value] of Object.entries(CORS_HEADERS)) c.res.headers.set(name, value);
});

/** The preflight of a request with a Range header (not a CORS-safelisted one): GET and HEAD, with Range. */
directoryDownloadRoutes.options(FILE_PATH, (c) =>
  c.body(null, 204, { "access-control-allow-methods": "GET, HEAD", "access-control-allow-headers": "range", "access-control-max-age": "86400" }),
);

directoryDownloadRoutes.get(FILE_PATH, async (c) => {
  const { jobId, name, token } = c.req.param();
  // Hono has decoded the path parameter once already; a name is a plain file name, so no second decode.
  const path = c.req.param("path");
  const refuse = (status: 403 | 404, text: string) => c.text(text, status, { "cache-control": "no-store" });
  if (!isDirectoryFilePath(path)) return refuse(404, "no such file");
  if (!(await verifyToken(loadConfig(c.env).storage, "read", jobId, name, token, Date.now()))) {
    return refuse(403, "this link is invalid or has expired: get a fresh one from the job");
  }
  const key = directoryFileKey(jobId, name, path);
  const head = await c.env.BUCKET.head(key);
  if (!head) return refuse(404, "no such file");
  const range = answerRange(c.req.header("range"), head.size);
  if (range.kind === "unsatisfiable") {
    return c.body(null, 416, { "content-range": `bytes */${head.size}`, "accept-ranges": "bytes", "cache-control": "no-store" });
  }
  const object = await c.env.BUCKET.get(key, range.kind === "partial" ? { range: { offset: range.offset, length: range.length } } : {});
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
  if (range.kind === "partial") {
    headers.set("content-range", `bytes ${range.offset}-${range.offset + range.length - 1}/${object.size}`);
    headers.set("content-length", String(range.length));
    return new Response(object.body, { status: 206, headers });
  }
  headers.set("content-length", String(object.size));
  return new Response(object.body, { status: 200, headers });
});
