import { createHash } from "node:crypto";
import http from "node:http";
import https from "node:https";
import type { FileHandle } from "node:fs/promises";
import type { Readable } from "node:stream";
import type { RunnerOutput } from "../../src/runner/runner-protocol.ts";
import { RUNNER_SECRET_HEADER } from "../../src/runner/runner-secret.ts";
import type { RunnerSettings } from "./settings.ts";
import { trustedAgent } from "./trust.ts";

/** A part is 5 MiB: at the slowest rate storage is expected to take, well within this. */
const PART_TIMEOUT_MS = 5 * 60_000;
/** The Worker answers with a short JSON object (an upload id, an ETag, a size); more is not read. */
const ANSWER_MAX_BYTES = 16 * 1024;

export class PartsRefused extends Error {}

export type SentPart = { partNumber: number; etag: string; sha256: string; length: number };

/**
 * The runner's side of the Worker's multipart upload of one file output (src/storage/output-parts.ts):
 * start it, send a part from a byte range of a descriptor (hashing what it sends), complete it from
 * the parts' ETags, or abort it. Every call is bounded in time and in what it reads back.
 */
export function outputPartsClient(output: RunnerOutput, settings: RunnerSettings, canceled: AbortSignal) {
  const prefix = output.streamParts!.url;
  const auth = { authorization: `Bearer ${output.uploadToken ?? ""}`, [RUNNER_SECRET_HEADER]: settings.controlSecret };
  const agent = trustedAgent(settings.extraCaFile);
  const json = (step: string, body: unknown) => {
    const text = JSON.stringify(body);
    return call(prefix + step, "POST", { ...auth, "content-type": "application/json" }, { bytes: Buffer.from(text) });
  };

  type Body = { bytes: Buffer } | { stream: Readable; length: number };
  async function call(url: string, method: string, headers: Record<string, string>, body: Body) {
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
          signal: AbortSignal.any([AbortSignal.timeout(PART_TIMEOUT_MS), canceled]),
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

  return {
    async start(): Promise<string> {
      const { uploadId } = await json("start", {});
      if (typeof uploadId !== "string" || !uploadId) throw new PartsRefused("no upload id");
      return uploadId;
    },
    /** Bytes `start` to `start + length - 1` of the descriptor as part `partNumber`. */
    async send(uploadId: string, partNumber: number, handle: FileHandle, start: number, length: number) {
      const hash = createHash("sha256");
      const body = handle.createReadStream({ start, end: start + length - 1, autoClose: false });
      let read = 0;
      body.on("data", (chunk) => {
        read += chunk.length;
        hash.update(chunk);
      });
      // The job may cut its file short while it runs: a part short of its length fails now, not at a timeout.
      body.on("end", () => {
        if (read < length) body.destroy(new PartsRefused(`part ${partNumber} was cut short`));
      });
      const headers = { ...auth, "x-upload-id": uploadId };
      const { etag } = await call(`${prefix}part-${partNumber}`, "PUT", headers, { stream: body, length });
      if (typeof etag !== "string" || !etag) throw new PartsRefused(`part ${partNumber} has no ETag`);
      return { partNumber, etag, sha256: hash.digest("hex"), length } satisfies SentPart;
    },
    async complete(uploadId: string, parts: SentPart[]): Promise<number> {
      const { size } = await json("complete", {
        uploadId,
        parts: parts.map(({ partNumber, etag }) => ({ partNumber, etag })),
      });
      if (typeof size !== "number") throw new PartsRefused("no size");
      return size;
    },
    async abort(uploadId: string): Promise<void> {
      await json("abort", { uploadId });
    },
  };
}

export type OutputPartsClient = ReturnType<typeof outputPartsClient>;

/** The SHA-256 of a byte range of a descriptor. */
export async function rangeSha256(handle: FileHandle, start: number, length: number): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of handle.createReadStream({ start, end: start + length - 1, autoClose: false }))
    hash.update(chunk as Buffer);
  return hash.digest("hex");
}
