// What the sidecar learns from a connection's first bytes before it asks workerd, as
// cloudflare/proxy-everything does: the SNI of a TLS ClientHello (sni.go `extractSNI`,
// main.go `peekSNI`) and, for port 80 without SNI, the Host of an HTTP request head
// (main.go `readHostname`, at most 128 KiB of headers).

export const MAX_PEEKED_HTTP_HEADER_BYTES = 128 * 1024;
/** Upstream peeks a ClientHello through a 4 KiB `bufio.Reader`: a longer record is parsed as far as that goes. */
export const SNI_PEEK_BYTES = 4096;
const TLS_RECORD_HEADER_BYTES = 5;
const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "CONNECT", "OPTIONS", "TRACE"];

/** Whether `bytes` are enough to decide on SNI: a TLS record (or its first 4 KiB), or a first byte that is not TLS. */
export function sniDecidable(bytes: Buffer): boolean {
  if (bytes.length === 0) return false;
  if (bytes[0] !== 0x16) return true;
  if (bytes.length < TLS_RECORD_HEADER_BYTES) return false;
  return bytes.length >= Math.min(SNI_PEEK_BYTES, TLS_RECORD_HEADER_BYTES + bytes.readUInt16BE(3));
}

/** The SNI host name of a ClientHello, or "" (not TLS, no SNI, or malformed: upstream's rules). */
export function extractSni(data: Buffer): string {
  if (data.length < TLS_RECORD_HEADER_BYTES || data[0] !== 0x16) return "";
  const fragment = data.subarray(TLS_RECORD_HEADER_BYTES, TLS_RECORD_HEADER_BYTES + data.readUInt16BE(3));
  if (fragment.length < 4 || fragment[0] !== 0x01) return "";
  const body = fragment.subarray(4);
  if (body.length < 34) return "";
  let pos = 34; // version + random
  if (pos >= body.length) return "";
  pos += 1 + body[pos]; // session id
  if (pos + 2 > body.length) return "";
  pos += 2 + body.readUInt16BE(pos); // cipher suites
  if (pos >= body.length) return "";
  pos += 1 + body[pos]; // compression methods
  if (pos + 2 > body.length) return "";
  const extensionsEnd = Math.min(pos + 2 + body.readUInt16BE(pos), body.length);
  pos += 2;
  while (pos + 4 <= extensionsEnd) {
    const type = body.readUInt16BE(pos);
    const len = body.readUInt16BE(pos + 2);
    pos += 4;
    if (pos + len > extensionsEnd) break;
    if (type === 0x0000) return serverName(body.subarray(pos, pos + len));
    pos += len;
  }
  return "";
}

function serverName(ext: Buffer): string {
  if (ext.length < 2) return "";
  const list = ext.subarray(2, 2 + ext.readUInt16BE(0));
  let pos = 0;
  while (pos + 3 <= list.length) {
    const type = list[pos];
    const len = list.readUInt16BE(pos + 1);
    pos += 3;
    if (pos + len > list.length) break;
    if (type === 0x00) return list.toString("latin1", pos, pos + len);
    pos += len;
  }
  return "";
}

/** Upstream `looksLikeHTTPRequestPrefix`: the bytes so far could start a request line. */
export function looksLikeHttpPrefix(bytes: Buffer): boolean {
  const text = bytes.toString("latin1", 0, Math.min(bytes.length, 8));
  return HTTP_METHODS.some((m) => (text.length <= m.length + 1 ? `${m} `.startsWith(text) : text.startsWith(`${m} `)));
}

export type HostnameRead =
  | { kind: "need-more" }
  | { kind: "not-http" }
  | { kind: "host"; host: string }
  | { kind: "error" };

/**
 * Upstream `readHostname` on the bytes read so far: not HTTP (then the tunnel opens without a
 * hint), the request's Host ("" when it names none: no hint either), more bytes needed, or an
 * error (headers over 128 KiB, a malformed head), on which upstream resets the connection.
 */
export function readHostname(bytes: Buffer): HostnameRead {
  if (!looksLikeHttpPrefix(bytes)) return { kind: "not-http" };
  const end = bytes.indexOf("\r\n\r\n");
  if (end < 0) return bytes.length >= MAX_PEEKED_HTTP_HEADER_BYTES ? { kind: "error" } : { kind: "need-more" };
  const head = bytes.toString("latin1", 0, end);
  const [requestLine, ...fields] = head.split("\r\n");
  if (!/^[A-Z]+ \S+ HTTP\/1\.[01]$/.test(requestLine)) return { kind: "error" };
  const target = requestLine.split(" ")[1];
  // Go's http.ReadRequest: an absolute-form target's host wins over the Host field.
  const absolute = /^https?:\/\/([^/?#]+)/i.exec(target)?.[1];
  const field = fields
    .find((f) => /^host:/i.test(f))
    ?.slice(5)
    .trim();
  const host = absolute ?? field;
  return { kind: "host", host: host ?? "" };
}
