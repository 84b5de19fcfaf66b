import { answerRange } from "./byte-range.ts";

/**
 * Serving one stored object from the API's own origin (a directory output's files, a local stack's
 * downloads): whole, by range, as a HEAD, or as a 304 when the client's copy is current. The bytes
 * are a job's or a user's, so EVERY answer — 200, 206, 304, 416, HEAD and the refusals — carries the
 * same two headers: no MIME sniffing, and a CSP sandbox, so nothing served can act as a page of the
 * origin where the dashboard keeps its key (a browser may render a 416 or 404 body too).
 */
export const SERVED_FILE_HEADERS: Readonly<Record<string, string>> = {
  "x-content-type-options": "nosniff",
  "content-security-policy": "sandbox; default-src 'none'",
};

/** Sets the served-file headers on a response (whatever its status) and returns it. */
export function withServedFileHeaders(res: Response): Response {
  for (const [name, value] of Object.entries(SERVED_FILE_HEADERS)) res.headers.set(name, value);
  return res;
}

/** A plain-text refusal (bad token, no such file), never cached, with the served-file headers. */
export function refuseServedFile(status: 403 | 404, text: string): Response {
  return withServedFileHeaders(
    new Response(text, {
      status,
      headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" },
    }),
  );
}

export type ServeOptions = {
  /** The type when the object has none stored. */
  fallbackType: string;
  /** Headers of this kind of file's answers (cache policy, disposition). */
  headers: Record<string, string>;
};

/** Answers a GET or HEAD for the object at `key` (404 when it is not there). */
export async function serveObject(
  bucket: R2Bucket,
  key: string,
  request: Request,
  opts: ServeOptions,
): Promise<Response> {
  const head = await bucket.head(key);
  if (!head) return refuseServedFile(404, "no such file");
  const headers = new Headers({ ...opts.headers, "accept-ranges": "bytes", etag: head.httpEtag });
  headers.set("content-type", head.httpMetadata?.contentType ?? opts.fallbackType);
  if (etagMatches(request.headers.get("if-none-match"), head.httpEtag))
    return withServedFileHeaders(new Response(null, { status: 304, headers }));
  // RFC 9110 §14.2: ranges are defined for GET only; a HEAD describes the whole file.
  const isHead = request.method === "HEAD";
  const range = isHead
    ? ({ kind: "whole" } as const)
    : answerRange(request.headers.get("range") ?? undefined, head.size);
  if (range.kind === "unsatisfiable") {
    headers.set("content-range", `bytes */${head.size}`);
    headers.set("cache-control", "no-store");
    headers.delete("content-type");
    return withServedFileHeaders(new Response(null, { status: 416, headers }));
  }
  if (isHead) {
    headers.set("content-length", String(head.size));
    return withServedFileHeaders(new Response(null, { status: 200, headers }));
  }
  const object = await bucket.get(
    key,
    range.kind === "partial" ? { range: { offset: range.offset, length: range.length } } : {},
  );
  if (!object) return refuseServedFile(404, "no such file");
  if (range.kind === "partial") {
    headers.set("content-range", `bytes ${range.offset}-${range.offset + range.length - 1}/${head.size}`);
    headers.set("content-length", String(range.length));
    return withServedFileHeaders(new Response(object.body, { status: 206, headers }));
  }
  headers.set("content-length", String(head.size));
  return withServedFileHeaders(new Response(object.body, { status: 200, headers }));
}

/** `If-None-Match` (RFC 9110 §13.1.2): `*` or a list of entity tags, compared weakly. */
function etagMatches(header: string | null, etag: string): boolean {
  if (!header) return false;
  const strip = (t: string) => t.trim().replace(/^W\//, "");
  return header.split(",").some((t) => t.trim() === "*" || strip(t) === strip(etag));
}
