import { createHash } from "node:crypto";
import http from "node:http";
import https from "node:https";
import type { FileHandle } from "node:fs/promises";
import { Readable } from "node:stream";
import type { RunnerOutput } from "../../src/runner/runner-protocol.ts";
import { RUNNER_SECRET_HEADER } from "../../src/runner/runner-secret.ts";
import type { RunnerSettings } from "./settings.ts";
import { trustedAgent } from "./trust.ts";

/**
 * A part (5 MiB) that takes longer than this is sent at under ~85 KB/s: the output goes in one PUT
 * after the command instead (upload.ts, with its own limit), rather than holding the job's end.
 */
const PART_TIMEOUT_MS = 60_000;
/** An abort only tells storage to drop the parts: short, and sent even after a cancel. */
const ABORT_TIMEOUT_MS = 10_000;
/** The Worker answers with a short JSON object (an upload id, an ETag, a size); more is not read. */
const ANSWER_MAX_BYTES = 16 * 1024;
/** Positional reads of this size: no stream (and no listener) is left on the descriptor per part. */
const READ_CHUNK_BYTES = 256 * 1024;

export class PartsRefused extends Error {}

export type SentPart = { partNumber: number; etag: string; sha256: string; length: number };
type Body = { bytes: Buffer } | { stream: Readable; length: number };

/**
 * The runner's side of the Worker's multipart upload of one file output (src/storage/output-parts.ts):
 * start it, send a part from a byte range of a descriptor (hashing what it sends), complete it from
 * the parts' ETags, or abort it. Every call is bounded in time and in what it reads back; `signal`
 * stops one (a cancel, the job's deadline, a send no longer wanted).
 */
export function outputPartsClient(output: RunnerOutput, settings: RunnerSettings) {
  const prefix = output.streamParts!.url;
  const auth = { authorization: `Bearer ${output.uploadToken ?? ""}`, [RUNNER_SECRET_HEADER]: settings.controlSecret };
  const agent = trustedAgent(settings.extraCaFile);
  const json = (step: string, body: unknown, signal: AbortSignal) =>
    call(
      prefix + step,
      "POST",
      { ...auth, "content-type": "application/json" },
      { bytes: Buffer.from(JSON.stringify(body)) },
      signal,
    );

  function call(url: string, method: string, headers: Record<string, string>, body: Body, signal: AbortSignal) {
    const length = "bytes" in body ? body.bytes.length : body.length;
    const target = new URL(url);
    const client = target.protocol === "https:" ? https : http;
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const req = client.request(
        target.href,
        {
          method,
          agent: target.protocol === "https:" ? agent : undefined,
          headers: { ...headers, "content-length": String(length) },
          signal,
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on("data", (c: Buffer) => {
            size += c.length;
            if (size > ANSWER_MAX_BYTES) res.destroy(new PartsRefused("the answer is too long"));
            else chunks.push(c);
          });
          res.on("error", reject);
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            const status = res.statusCode ?? 0;
            if (status < 200 || status >= 300) return reject(new PartsRefused(`HTTP ${status}: ${text.slice(0, 200)}`));
            if (status === 204) return resolve({});
            try {
              const v: unknown = JSON.parse(text);
              if (typeof v === "object" && v !== null && !Array.isArray(v)) resolve(v as Record<string, unknown>);
              else reject(new PartsRefused("the answer is not a JSON object"));
            } catch {
              reject(new PartsRefused("the answer is not JSON"));
            }
          });
        },
      );
      req.on("error", reject);
      if ("bytes" in body) req.end(body.bytes);
      else body.stream.on("error", (err: Error) => req.destroy(err)).pipe(req);
    });
  }

  const bounded = (signal: AbortSignal) => AbortSignal.any([AbortSignal.timeout(PART_TIMEOUT_MS), signal]);
  return {
    async start(signal: AbortSignal): Promise<string> {
      const { uploadId } = await json("start", {}, bounded(signal));
      if (typeof uploadId !== "string" || !uploadId) throw new PartsRefused("no upload id");
      return uploadId;
    },
    /** Bytes `start` to `start + length - 1` of the descriptor as part `partNumber`. */
    async send(
      uploadId: string,
      partNumber: number,
      handle: FileHandle,
      start: number,
      length: number,
      signal: AbortSignal,
    ) {
      const hash = createHash("sha256");
      const body = Readable.from(readRange(handle, start, length, (chunk) => hash.update(chunk)));
      const headers = { ...auth, "x-upload-id": uploadId };
      const { etag } = await call(
        `${prefix}part-${partNumber}`,
        "PUT",
        headers,
        { stream: body, length },
        bounded(signal),
      );
      if (typeof etag !== "string" || !etag) throw new PartsRefused(`part ${partNumber} has no ETag`);
      return { partNumber, etag, sha256: hash.digest("hex"), length } satisfies SentPart;
    },
    async complete(uploadId: string, parts: SentPart[], signal: AbortSignal): Promise<number> {
      const list = parts.map(({ partNumber, etag }) => ({ partNumber, etag }));
      const { size } = await json("complete", { uploadId, parts: list }, bounded(signal));
      if (typeof size !== "number") throw new PartsRefused("no size");
      return size;
    },
    async abort(uploadId: string): Promise<void> {
      await json("abort", { uploadId }, AbortSignal.timeout(ABORT_TIMEOUT_MS));
    },
  };
}

export type OutputPartsClient = ReturnType<typeof outputPartsClient>;

/**
 * A byte range of a descriptor, by positional reads. The job may cut its file short while it runs: a
 * range past the end fails at once (not at a timeout, with the request waiting for bytes never sent).
 */
export async function* readRange(
  handle: FileHandle,
  start: number,
  length: number,
  seen: (chunk: Buffer) => void = () => {},
): AsyncGenerator<Buffer> {
  for (let at = start; at < start + length; ) {
    const buffer = Buffer.allocUnsafe(Math.min(READ_CHUNK_BYTES, start + length - at));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, at);
    if (bytesRead === 0) throw new PartsRefused(`the file ends before byte ${at}: it was cut short`);
    const chunk = buffer.subarray(0, bytesRead);
    seen(chunk);
    yield chunk;
    at += bytesRead;
  }
}

/** The SHA-256 of a byte range of a descriptor. */
export async function rangeSha256(handle: FileHandle, start: number, length: number): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of readRange(handle, start, length)) hash.update(chunk);
  return hash.digest("hex");
}
