import http from "node:http";
import { mkdir, rm, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { answerHead, parseRange } from "./origin-facts.ts";
import type { OpenedFile } from "./output-file.ts";

/** The socket's name in its folder: the sandbox's relay connects to `/job/io/in.sock` (sandbox.ts). */
const SOCKET_NAME = "in.sock";

export type OutputServer = {
  /** The folder holding the socket, bound into a probe's sandbox as its relay's upstream. */
  socketDir: string;
  /** Serves `path` from now on: exactly the bytes of this descriptor, by range. */
  release: (path: string, file: OpenedFile) => void;
  /** Ends every request, answered or waiting, and removes the socket. */
  close: () => Promise<void>;
};

/**
 * Serves a job's finished outputs to the runner's own sandboxed ffprobe, started beside the command so
 * that its start-up (ffprobe links some 200 shared libraries) is paid while the command runs, not after.
 * A request for an output waits, held open, until the runner releases it: after the command has exited
 * and the output was opened as output-file.ts says (no link followed, the job's own regular file).
 * Then it is read through that very descriptor, the bytes the upload reads. Only the paths given at
 * start are served, and only by GET; the socket sits in `socketDir`, a folder that no job's sandbox shows.
 */
export async function startOutputServer(paths: string[], socketDir: string): Promise<OutputServer> {
  const released = new Map<string, { file: Promise<OpenedFile | null>; settle: (f: OpenedFile | null) => void }>();
  for (const path of paths) {
    let settle!: (f: OpenedFile | null) => void;
    const file = new Promise<OpenedFile | null>((resolve) => (settle = resolve));
    released.set(path, { file, settle });
  }
  const server = http.createServer((req, res) => {
    const entry = released.get(pathOf(req.url));
    if (!entry || req.method !== "GET") return void res.writeHead(404).end();
    // Whatever goes wrong with one request (the reader left, the descriptor was closed) ends only it.
    entry.file
      .then(async (file) => {
        if (file === null) res.writeHead(404).end();
        else await serve(file, req, res);
      })
      .catch(() => res.destroy());
  });
  await mkdir(socketDir, { mode: 0o700 });
  await new Promise<void>((ready, reject) => server.once("error", reject).listen(join(socketDir, SOCKET_NAME), ready));
  return {
    socketDir,
    release: (path, file) => released.get(path)?.settle(file),
    async close() {
      for (const entry of released.values()) entry.settle(null);
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
      await rm(socketDir, { recursive: true, force: true });
    },
  };
}

async function serve(file: OpenedFile, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const head = answerHead(parseRange(req.headers.range), file.size);
  res.writeHead(head.status, head.headers);
  if (head.status === 416 || head.last < head.first) return void res.end();
  await pipeline(Readable.from(bytesOf(file.handle, head.first, head.last)), res);
}

const CHUNK_BYTES = 64 * 1024;

/**
 * The bytes first..last of a descriptor, by positional reads: the upload reading it at the same time is
 * not disturbed, and a reader that goes away (ffprobe seeks) stops this without closing the descriptor,
 * which the descriptor's own read stream would do when destroyed.
 */
async function* bytesOf(handle: FileHandle, first: number, last: number): AsyncGenerator<Buffer> {
  for (let at = first; at <= last; ) {
    const want = Math.min(CHUNK_BYTES, last - at + 1);
    const { bytesRead, buffer } = await handle.read(Buffer.allocUnsafe(want), 0, want, at);
    if (bytesRead === 0) return;
    yield buffer.subarray(0, bytesRead);
    at += bytesRead;
  }
}

function pathOf(url: string | undefined): string {
  try {
    return decodeURIComponent(new URL(url ?? "/", "http://x").pathname);
  } catch {
    return "";
  }
}
