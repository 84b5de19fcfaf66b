import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env.ts";
import { loadConfig } from "../../config.ts";
import { directoryFileKey, isDirectoryFilePath } from "../../storage/directory-files.ts";
import { verifyToken } from "../../storage/url-signing.ts";
import { contentTypeFor } from "../../storage/content-types.ts";
import { refuseServedFile, SERVED_FILE_HEADERS, serveObject } from "../../storage/serve-object.ts";

/**
 * `GET /outputs/<job>/<output>/<token>/<file>`: a directory output's files, no API key (the token
 * is the authorization, like a presigned URL's). Playlists stay unchanged: their relative segment
 * and variant URLs resolve under the same signed prefix. Byte ranges are served for players that
 * ask for them (single-file HLS), and a 304 to a browser whose copy is current.
 *
 * Readable from any origin (CORS `*`): web players (hls.js, Shaka, video.js) fetch playlists and
 * segments with XHR from the page's own origin, and the link carries its own authorization (no
 * cookies, no API key), so allowing every origin gives a page nothing the link does not.
 */
export const directoryDownloadRoutes = new OpenAPIHono<AppEnv>();

const FILE_PATH = "/:jobId{[0-9a-f-]{36}}/:name{[A-Za-z0-9_]{1,64}}/:token/:path";
const CORS_HEADERS = {
  "access-control-allow-origin": "*",
  // What a player reads of an answer besides its body: the length, the range it got, the validator.
  "access-control-expose-headers": "content-length, content-range, accept-ranges, etag",
};

// Every answer under the path, refusals and the preflight included, is readable cross-origin and
// carries the served-file headers (src/storage/serve-object.ts): they are set here, once, so no
// status can be answered without them.
directoryDownloadRoutes.use(FILE_PATH, async (c, next) => {
  await next();
  for (const [name, value] of Object.entries({ ...CORS_HEADERS, ...SERVED_FILE_HEADERS }))
    c.res.headers.set(name, value);
});

/** The preflight of a request with a Range header (not a CORS-safelisted one): GET and HEAD, with Range. */
directoryDownloadRoutes.options(FILE_PATH, (c) =>
  c.body(null, 204, {
    "access-control-allow-methods": "GET, HEAD",
    "access-control-allow-headers": "range, if-none-match",
    "access-control-max-age": "86400",
  }),
);

/**
 * The route as the document describes it. It is routed by Hono's own patterns above (a job id, an
 * output name), which a path of the document cannot carry, so it is served below and described here.
 */
const getDirectoryFile = createRoute({
  method: "get",
  path: "/{jobId}/{output}/{token}/{file}",
  operationId: "getDirectoryFile",
  summary:
    "A file of a directory output (HLS, image sequence), as linked from the job: the token authorizes the whole folder, so playlists' relative URLs work",
  security: [],
  parameters: [
    ...["jobId", "output", "token", "file"].map((name) => ({
      name,
      in: "path" as const,
      required: true,
      schema: { type: "string" as const },
    })),
    { name: "Range", in: "header", schema: { type: "string" } },
  ],
  responses: {
    200: { description: "The file" },
    206: { description: "A byte range of it" },
    403: { description: "The token is invalid or expired" },
    404: { description: "No such file" },
  },
});
directoryDownloadRoutes.openAPIRegistry.registerPath(getDirectoryFile);

/** GET and HEAD (Hono answers a HEAD with this handler, without the body). */
directoryDownloadRoutes.get(FILE_PATH, async (c) => {
  const { jobId, name, token } = c.req.param();
  // Hono has decoded the path parameter once already; a name is a plain file name, so no second decode.
  const path = c.req.param("path");
  if (!isDirectoryFilePath(path)) return refuseServedFile(404, "no such file");
  if (!(await verifyToken(loadConfig(c.env).storage, "read", jobId, name, token, Date.now()))) {
    return refuseServedFile(403, "this link is invalid or has expired: get a fresh one from the job");
  }
  return serveObject(c.env.BUCKET, directoryFileKey(jobId, name, path), c.req.raw, {
    fallbackType: contentTypeFor(path),
    headers: { "cache-control": "private, max-age=300" },
  });
});
