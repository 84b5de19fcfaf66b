import { createReadStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunnerOutcome } from "../../src/runner/runner-protocol.ts";
import { ended, type JobEnded } from "./job-ended.ts";
import { createInputOrigin, type InputOrigin, type OriginOptions } from "./input-origin.ts";
import { answerHead, parseRange } from "./origin-facts.ts";

export type StreamedInput = {
  name: string;
  url: string;
  trusted: boolean /** The path ffmpeg asks for (`/in/video.mp4`). */;
  path: string;
  copyPath: string;
};
export type InputReads = NonNullable<RunnerOutcome["inputReads"]>;

export type InputServerOptions = OriginOptions & {
  /** All inputs' bytes fetched from their origins together, at most. */
  maxReadBytes: number;
  /** An origin that sends nothing for this long while ffmpeg waits on it fails the job. */
  originIdleMs: number;
};

export type InputServer = {
  /** The Unix socket the sandbox's relay connects to (container/bin/input-relay.pl). */
  socketPath: string;
  failure: () => JobEnded | null;
  reads: () => InputReads;
  close: () => Promise<void>;
};

/**
 * Serves a job's streamed inputs to its sandboxed commands over a Unix socket, by range: each read
 * is fetched from the origin as ffmpeg reads it, at ffmpeg's pace, and a read ffmpeg abandons (it
 * seeks elsewhere) is abandoned upstream too. Every input is opened first (input-origin.ts): an
 * input that cannot be fetched fails the job before anything runs. A failure while ffmpeg reads
 * (the origin broke, stalled, or changed the file) is kept: it fails the job however ffmpeg ended.
 */
export async function startInputServer(inputs: StreamedInput[], opts: InputServerOptions): Promise<InputServer> {
  const origins = new Map(inputs.map((i) => [i.path, { origin: createInputOrigin(i, opts), bytesRead: 0 }]));
  const all = [...origins.values()];
  const closeOrigins = () => {
    for (const o of all) o.origin.close();
  };
  try {
    await Promise.all(all.map((o) => o.origin.open()));
  } catch (err) {
    closeOrigins();
    throw err;
  }
  let failed: JobEnded | null = null;
  const originBytes = () => all.reduce((n, o) => n + o.origin.originBytes, 0);

  const server = http.createServer((req, res) => {
    const entry = origins.get(decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname));
    if (!entry || req.method !== "GET") return void res.writeHead(404).end();
    if (failed) return void res.writeHead(502).end();
    serve(entry, req, res).catch((err: unknown) => {
      // A read ffmpeg abandoned (a seek) is no failure; anything else is the job's.
      if (!res.destroyed) failed ??= entry.origin.failure(err);
      res.destroy();
    });
  });

  async function serve(
    entry: { origin: InputOrigin; bytesRead: number },
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> {
    const { origin } = entry;
    const range = parseRange(req.headers.range);
    const head = answerHead(range, origin.facts()?.size ?? 0);
    res.writeHead(head.status, head.headers);
    if (head.status === 416 || head.last < head.first) return void res.end();
    const abandoned = new AbortController();
    res.on("close", () => abandoned.abort());
    const copy = origin.copiedTo();
    const fromOrigin = copy === null;
    const body: AsyncIterable<Buffer> = copy
      ? createReadStream(copy, { start: head.first, end: head.last })
      : origin.read(head.first, head.last, abandoned.signal);
    let left = head.last - head.first + 1;
    const chunks = body[Symbol.asyncIterator]();
    try {
      while (left > 0 && !res.destroyed) {
        // Only the wait on the origin counts toward a stall, never a wait on ffmpeg (it reads at its pace).
        const next = await withinIdle(chunks.next(), opts.originIdleMs, () =>
          ended(
            "INPUT_FETCH_FAILED",
            `Input "${origin.name}" stalled: its origin sent nothing for ${Math.round(opts.originIdleMs / 1000)} s`,
          ),
        );
        if (next.done) break;
        const chunk = next.value;
        const part = chunk.length > left ? chunk.subarray(0, left) : chunk;
        left -= part.length;
        entry.bytesRead += part.length;
        if (fromOrigin) {
          origin.originBytes += chunk.length;
          if (originBytes() > opts.maxReadBytes)
            throw ended(
              "LIMIT_EXCEEDED",
              `The job read more than ${opts.maxReadBytes} bytes from its inputs' origins and was stopped`,
            );
        }
        if (!res.write(part)) await drainedOrClosed(res);
      }
      if (left > 0 && !res.destroyed)
        throw ended(
          "INPUT_FETCH_FAILED",
          `Input "${origin.name}" could not be fetched: its origin ended the body ${left} bytes short`,
        );
      res.end();
    } finally {
      abandoned.abort();
      await chunks.return?.(undefined as never)?.catch(() => {});
    }
  }

  const dir = await mkdtemp(join(tmpdir(), "ffjobs-io-"));
  const socketPath = join(dir, "in.sock");
  await new Promise<void>((ready, reject) => server.once("error", reject).listen(socketPath, ready));
  return {
    socketPath,
    failure: () => failed,
    reads: () =>
      Object.fromEntries(
        all.map((o) => [
          o.origin.name,
          { bytesRead: o.bytesRead, originBytes: o.origin.originBytes, copied: o.origin.copiedTo() !== null },
        ]),
      ),
    close: async () => {
      closeOrigins();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** `next`, or the error `stalled` makes once `idleMs` pass first. */
async function withinIdle<T>(next: Promise<T>, idleMs: number, stalled: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      next,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(stalled()), idleMs))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Once ffmpeg's side takes more (or is gone): both listeners removed, so a long read does not pile them up. */
function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}
