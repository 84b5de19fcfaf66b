import { createHash, type Hash } from "node:crypto";
import { Readable } from "node:stream";
import type { RunnerOutput } from "../../src/runner/runner-protocol.ts";
import type { OpenedFile } from "./output-file.ts";
import { egressOptions, FetchFailure, sendToUrl } from "./safe-fetch.ts";
import type { RunnerSettings } from "./settings.ts";

const SEND_TIMEOUT_MS = 30 * 60_000;
/** What is kept of a destination's refusal (S3's XML error names its Code and Message in its first lines). */
const ANSWER_CHARS = 300;
/** A CompleteMultipartUpload answer is a short XML document; more is not read. */
const COMPLETE_ANSWER_MAX_CHARS = 64 * 1024;
/** Headers that belong to the object (sent by the client's CreateMultipartUpload), not to its parts. */
const OBJECT_HEADER = /^(content-type|content-disposition|content-encoding|content-language|cache-control|content-md5|x-amz-meta-.*)$/;

export class DestinationRefused extends Error {}

type Sent = { size: number; etag: string | null; sha256: string };
type Context = { output: RunnerOutput; net: Parameters<typeof sendToUrl>[2]; signal: AbortSignal };

/**
 * Sends an output to the user's own storage under the address policy of URL inputs (a destination is
 * a URL the client chose), with the headers the client gave: one PUT to its presigned (or SAS) URL, or
 * an S3 multipart upload the client started and presigned (each part PUT to its URL in order, then the
 * parts' ETags POSTed to the completion URL). Answers the storage's ETag and the file's SHA-256,
 * computed on the bytes as they are sent. A refusal says what the destination answered.
 */
export async function sendToDestination(file: OpenedFile, output: RunnerOutput, settings: RunnerSettings, allowedPrivateHosts: string[], canceled: AbortSignal): Promise<Sent> {
  const context: Context = { output, net: { allowedPrivateHosts, ...egressOptions(settings) }, signal: AbortSignal.any([AbortSignal.timeout(SEND_TIMEOUT_MS), canceled]) };
  return output.destination?.parts ? sendInParts(file, context) : sendWhole(file, context);
}

/** Bytes `start`..`end` (inclusive) of the opened output, read through its descriptor. */
const slice = (file: OpenedFile, start: number, end: number): Readable =>
  end < start ? Readable.from([]) : file.handle.createReadStream({ start, end, autoClose: false });

async function sendWhole(file: OpenedFile, c: Context): Promise<Sent> {
  const { size } = file;
  const hash = createHash("sha256");
  const headers = { "content-type": c.output.contentType, ...c.output.destination?.headers, "content-length": String(size) };
  const answer = await send("PUT", c.output.uploadUrl, headers, hashed(slice(file, 0, size - 1), hash), c);
  return { size, etag: answer.etag, sha256: hash.digest("hex") };
}

async function sendInParts(file: OpenedFile, c: Context): Promise<Sent> {
  const { size } = file;
  const { urls, partSizeBytes, completeUrl } = c.output.destination!.parts!;
  const needed = Math.max(1, Math.ceil(size / partSizeBytes));
  if (needed > urls.length) {
    throw new DestinationRefused(`the output is ${size} bytes: ${needed} parts of ${partSizeBytes} bytes, and the destination gave ${urls.length} part URL${urls.length === 1 ? "" : "s"}`);
  }
  const partHeaders = Object.fromEntries(Object.entries(c.output.destination!.headers).filter(([k]) => !OBJECT_HEADER.test(k)));
  const hash = createHash("sha256");
  const etags: string[] = [];
  for (let i = 0; i < needed; i++) {
    const start = i * partSizeBytes;
    const end = Math.min(size, start + partSizeBytes) - 1;
    const body = slice(file, start, end);
    const answer = await send("PUT", urls[i], { ...partHeaders, "content-length": String(end - start + 1) }, hashed(body, hash), c);
    if (!answer.etag) throw new DestinationRefused(`${new URL(urls[i]).host} answered part ${i + 1} without an ETag`);
    etags.push(answer.etag);
  }
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${etags.map((etag, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>${escapeXml(etag)}</ETag></Part>`).join("")}</CompleteMultipartUpload>`;
  const done = await send("POST", completeUrl, { ...partHeaders, "content-type": "application/xml", "content-length": String(Buffer.byteLength(xml)) }, Readable.from([xml]), c, COMPLETE_ANSWER_MAX_CHARS);
  // S3 may answer the completion 200 with an error in its body (it failed after the answer began).
  if (/<Error>/.test(done.body)) throw new DestinationRefused(`${new URL(completeUrl).host} answered the completion with an error: ${said(done.body)}`);
  const etag = /<ETag>([^<]*)<\/ETag>/.exec(done.body)?.[1];
  return { size, etag: etag ? unescapeXml(etag) : done.etag, sha256: hash.digest("hex") };
}

/** One request; its answer's ETag and the start of its body, or the refusal it was. */
async function send(method: "PUT" | "POST", url: string, headers: Record<string, string>, body: Readable, c: Context, keepChars = ANSWER_CHARS): Promise<{ etag: string | null; body: string }> {
  let res;
  try {
    res = await sendToUrl(method, url, c.net, c.signal, headers, body);
  } catch (err) {
    body.destroy();
    throw new DestinationRefused(err instanceof FetchFailure ? err.message : "network error");
  }
  const status = res.statusCode ?? 0;
  let answer = "";
  for await (const chunk of res) if (answer.length < keepChars) answer += String(chunk);
  if (status < 200 || status >= 300) {
    const text = said(answer);
    throw new DestinationRefused(`${new URL(url).host} answered HTTP ${status}${text ? `: ${text}` : ""}`);
  }
  return { etag: typeof res.headers.etag === "string" ? res.headers.etag : null, body: answer };
}

function hashed(body: Readable, hash: Hash): Readable {
  body.on("data", (chunk) => hash.update(chunk));
  return body;
}

const said = (answer: string) => answer.replace(/\s+/g, " ").trim().slice(0, ANSWER_CHARS);
const escapeXml = (s: string) => s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
const unescapeXml = (s: string) => s.replaceAll("&quot;", '"').replaceAll("&gt;", ">").replaceAll("&lt;", "<").replaceAll("&amp;", "&");
