import { createHash, type Hash } from "node:crypto";
import { Readable } from "node:stream";
import type { RunnerOutput } from "../../src/runner/runner-protocol.ts";
import { DestinationRefused, destinationRequest, said, type DestinationContext } from "./destination-request.ts";
import type { BusyClock } from "./busy-clock.ts";
import type { OpenedFile } from "./output-file.ts";
import { egressOptions } from "./safe-fetch.ts";
import type { RunnerSettings } from "./settings.ts";

export { DestinationRefused } from "./destination-request.ts";

/** A CompleteMultipartUpload answer is a short XML document; more is not read. */
const COMPLETE_ANSWER_MAX_CHARS = 64 * 1024;
/** Where a completion's answer ends: its result or its error (S3 sends spaces before either while it works). */
const COMPLETE_ANSWER_END = /<\/CompleteMultipartUploadResult>|<\/Error>/;
/** Headers that belong to the object (sent by the client's CreateMultipartUpload), not to its parts. */
const OBJECT_HEADER =
  /^(content-type|content-disposition|content-encoding|content-language|cache-control|content-md5|x-amz-meta-.*)$/;

type Sent = { size: number; etag: string | null; sha256: string };
/** A job's sends to its client's storage: none outlives the job's deadline, and their wall time is billed (the clock). */
export type DestinationSends = { deadline: number; clock: BusyClock };
type Context = DestinationContext & { output: RunnerOutput };

/**
 * Sends an output to the user's own storage under the address policy of URL inputs (a destination is
 * a URL the client chose), with the headers the client gave: one PUT to its presigned (or SAS) URL, or
 * an S3 multipart upload the client started and presigned (each part PUT to its URL in order, then the
 * parts' ETags POSTed to the completion URL). Answers the storage's ETag and the file's SHA-256,
 * computed on the bytes as they are sent. A refusal says what the destination answered. Every request
 * is bounded by the destination limits and the job's deadline (destination-request.ts).
 */
export async function sendToDestination(
  file: OpenedFile,
  output: RunnerOutput,
  settings: RunnerSettings,
  allowedPrivateHosts: string[],
  canceled: AbortSignal,
  sends: DestinationSends,
): Promise<Sent> {
  const context: Context = {
    output,
    net: { allowedPrivateHosts, ...egressOptions(settings) },
    limits: settings.destination,
    deadline: sends.deadline,
    canceled,
  };
  return sends.clock.time(() => (output.destination?.parts ? sendInParts(file, context) : sendWhole(file, context)));
}

/** Bytes `start`..`end` (inclusive) of the opened output, read through its descriptor. */
const slice = (file: OpenedFile, start: number, end: number): Readable =>
  end < start ? Readable.from([]) : file.handle.createReadStream({ start, end, autoClose: false });

async function sendWhole(file: OpenedFile, c: Context): Promise<Sent> {
  const { size } = file;
  const hash = createHash("sha256");
  const headers = {
    "content-type": c.output.contentType,
    ...c.output.destination?.headers,
    "content-length": String(size),
  };
  const answer = await destinationRequest(
    "PUT",
    c.output.uploadUrl,
    headers,
    hashed(slice(file, 0, size - 1), hash),
    c,
  );
  return { size, etag: answer.etag, sha256: hash.digest("hex") };
}

async function sendInParts(file: OpenedFile, c: Context): Promise<Sent> {
  const { size } = file;
  const { urls, partSizeBytes, completeUrl } = c.output.destination!.parts!;
  const needed = Math.max(1, Math.ceil(size / partSizeBytes));
  if (needed > urls.length) {
    throw new DestinationRefused(
      `the output is ${size} bytes: ${needed} parts of ${partSizeBytes} bytes, and the destination gave ${urls.length} part URL${urls.length === 1 ? "" : "s"}`,
    );
  }
  const partHeaders = Object.fromEntries(
    Object.entries(c.output.destination!.headers).filter(([k]) => !OBJECT_HEADER.test(k)),
  );
  const hash = createHash("sha256");
  const etags: string[] = [];
  for (let i = 0; i < needed; i++) {
    const start = i * partSizeBytes;
    const end = Math.min(size, start + partSizeBytes) - 1;
    const answer = await destinationRequest(
      "PUT",
      urls[i],
      { ...partHeaders, "content-length": String(end - start + 1) },
      hashed(slice(file, start, end), hash),
      c,
    );
    if (!answer.etag) throw new DestinationRefused(`${new URL(urls[i]).host} answered part ${i + 1} without an ETag`);
    etags.push(answer.etag);
  }
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${etags.map((etag, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>${escapeXml(etag)}</ETag></Part>`).join("")}</CompleteMultipartUpload>`;
  const done = await destinationRequest(
    "POST",
    completeUrl,
    { ...partHeaders, "content-type": "application/xml", "content-length": String(Buffer.byteLength(xml)) },
    Readable.from([xml]),
    c,
    { maxChars: COMPLETE_ANSWER_MAX_CHARS, complete: COMPLETE_ANSWER_END },
  );
  // S3 may answer the completion 200 with an error in its body (it failed after the answer began).
  if (/<Error>/.test(done.body))
    throw new DestinationRefused(
      `${new URL(completeUrl).host} answered the completion with an error: ${said(done.body)}`,
    );
  // Only the result says the object exists: an answer cut short, empty or kept open to the limit is no completion.
  if (!/<\/CompleteMultipartUploadResult>/.test(done.body))
    throw new DestinationRefused(
      `${new URL(completeUrl).host} answered the completion without a result: ${said(done.body) || "an empty body"}`,
    );
  const etag = /<ETag>([^<]*)<\/ETag>/.exec(done.body)?.[1];
  return { size, etag: etag ? unescapeXml(etag) : done.etag, sha256: hash.digest("hex") };
}

function hashed(body: Readable, hash: Hash): Readable {
  body.on("data", (chunk) => hash.update(chunk));
  return body;
}

const escapeXml = (s: string) =>
  s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
const unescapeXml = (s: string) =>
  s.replaceAll("&quot;", '"').replaceAll("&gt;", ">").replaceAll("&lt;", "<").replaceAll("&amp;", "&");
