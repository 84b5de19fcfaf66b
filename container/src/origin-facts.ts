import type { IncomingHttpHeaders } from "node:http";

/** A `Range: bytes=start-[end]` request (the only form ffmpeg sends). */
export type ByteRange = { start: number; end: number | null };

/** What an input is, as its origin first answered: later answers must agree, or the file changed. */
export type OriginFacts = { size: number; etag: string | null; lastModified: string | null };

export type OriginVerdict =
  /** Serve the body: bytes `first` to `last` of the input `facts` describes. */
  | { kind: "serve"; facts: OriginFacts; first: number; last: number }
  /** The origin does not serve ranges: copy the input once and serve the copy. */
  | { kind: "no_ranges" }
  | { kind: "past_end"; size: number }
  | { kind: "changed"; why: string }
  | { kind: "too_large" };

export function parseRange(header: string | undefined): ByteRange | null {
  const m = /^bytes=(\d{1,16})-(\d{0,16})$/.exec(header?.trim() ?? "");
  if (!m) return null;
  const start = Number(m[1]);
  const end = m[2] === "" ? null : Number(m[2]);
  return end !== null && end < start ? null : { start, end };
}

/**
 * Judges an origin's answer to a range request (RFC 9110 section 14): 206 with a Content-Range that
 * starts where asked serves; 200 serves only a request from byte 0 of an origin that says it takes
 * ranges (`Accept-Ranges: bytes`) and the length; 416 is past the end. Size, ETag and Last-Modified
 * must match what the origin said first.
 */
export function checkOrigin(
  known: OriginFacts | null,
  res: { statusCode?: number; headers: IncomingHttpHeaders },
  asked: ByteRange | null,
  maxBytes: number,
): OriginVerdict {
  const status = res.statusCode ?? 0;
  const header = (name: string) => {
    const v = res.headers[name];
    return typeof v === "string" ? v : null;
  };
  if (status === 416) {
    const size = Number(/^bytes \*\/(\d+)$/.exec(header("content-range") ?? "")?.[1] ?? known?.size ?? NaN);
    if (known && Number.isFinite(size) && size !== known.size)
      return { kind: "changed", why: `its size went from ${known.size} to ${size} bytes` };
    return { kind: "past_end", size: Number.isFinite(size) ? size : 0 };
  }
  let facts: OriginFacts;
  let first: number;
  let last: number;
  if (status === 206) {
    const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(header("content-range") ?? "");
    if (!m || Number(m[1]) !== (asked?.start ?? 0)) return { kind: "no_ranges" };
    [first, last] = [Number(m[1]), Number(m[2])];
    facts = { size: Number(m[3]), etag: header("etag"), lastModified: header("last-modified") };
  } else {
    const length = Number(header("content-length") ?? NaN);
    const takesRanges = /\bbytes\b/i.test(header("accept-ranges") ?? "");
    // A whole file answers a range only when the range was the whole file.
    const wholeAsked = asked === null || asked.end === null || asked.end >= length - 1;
    if (status !== 200 || (asked?.start ?? 0) !== 0 || !wholeAsked || !takesRanges || !Number.isFinite(length))
      return { kind: "no_ranges" };
    [first, last] = [0, length - 1];
    facts = { size: length, etag: header("etag"), lastModified: header("last-modified") };
  }
  const change = known && differences(known, facts);
  if (change) return { kind: "changed", why: change };
  if (facts.size > maxBytes) return { kind: "too_large" };
  return { kind: "serve", facts, first, last };
}

function differences(before: OriginFacts, now: OriginFacts): string | null {
  if (before.size !== now.size) return `its size went from ${before.size} to ${now.size} bytes`;
  if (before.etag && now.etag && before.etag !== now.etag) return `its ETag went from ${before.etag} to ${now.etag}`;
  if (before.lastModified && now.lastModified && before.lastModified !== now.lastModified)
    return `its Last-Modified went from ${before.lastModified} to ${now.lastModified}`;
  return null;
}

/** The head of an answer to ffmpeg for bytes `range` of an input of `size` bytes (RFC 9110 section 14.4), or 416 past its end. */
export function answerHead(
  range: ByteRange | null,
  size: number,
): { status: 200 | 206 | 416; headers: Record<string, string>; first: number; last: number } {
  const first = range?.start ?? 0;
  if (range && first >= size)
    return { status: 416, headers: { "content-range": `bytes */${size}` }, first, last: first - 1 };
  const last = Math.min(range?.end ?? size - 1, size - 1);
  const headers: Record<string, string> = {
    "accept-ranges": "bytes",
    "content-type": "application/octet-stream",
    "content-length": String(Math.max(0, last - first + 1)),
  };
  if (range) headers["content-range"] = `bytes ${first}-${last}/${size}`;
  return { status: range ? 206 : 200, headers, first, last };
}
