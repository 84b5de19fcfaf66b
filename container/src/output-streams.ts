import { lstat } from "node:fs/promises";
import { basename, join } from "node:path";
import { MIN_PART_BYTES } from "../../src/jobs/request/limits.ts";
import type { RunnerJobRequest, RunnerOutput } from "../../src/runner/runner-protocol.ts";
import type { JobFolder } from "./job-folder.ts";
import { jobOwner, openFileIn, openTrustedDir, type OpenedDir, type OpenedFile } from "./output-file.ts";
import { finishOutputParts } from "./finish-output-parts.ts";
import { outputPartsClient, type OutputPartsClient, type SentPart } from "./output-parts-client.ts";
import type { RunnerSettings } from "./settings.ts";

/** How often a running command's outputs are looked at for parts it has finished writing. */
export const OUTPUT_WATCH_INTERVAL_MS = 500;
/**
 * A part is sent once the file has grown this far past its end: muxers write on through a 32 KiB
 * buffer and go back only to their headers (in the first part, which is sent last) or, rarely, further.
 */
const SETTLED_BEYOND_BYTES = 1024 * 1024;
/** A file with fewer blocks on disk than this share of its length is sparse: nothing written there yet to send. */
const WRITTEN_SHARE = 0.5;

type Stream = {
  output: RunnerOutput;
  parts: OutputPartsClient;
  partBytes: number;
  opened: OpenedFile | null;
  uploadId: string | null;
  sent: Map<number, SentPart>;
  /** The next part to send while the command runs (the first, where headers are rewritten, waits for the end). */
  next: number;
  busy: Promise<void> | null;
  /** Aborts the part being sent while the command runs (the stream is stopped). */
  sending: AbortController;
  stopped: boolean;
  completed: boolean;
};

export type OutputStreams = {
  /**
   * Stores a finished output from its final descriptor, reusing every part sent while it was written
   * whose bytes are still the same (SHA-256 of the final bytes against what was sent), sending the
   * others, then completing the upload. Null when nothing was sent early or storage refused: the
   * caller PUTs the file whole, as for any small output.
   */
  finish(name: string, file: OpenedFile): Promise<number | null>;
  /** Stops watching; an upload not completed is aborted (its parts discarded). */
  close(): Promise<void>;
};

/**
 * Sends a large file output to the service's storage while its command still writes it
 * (docs/architecture.md, "Outputs"): every half second each output with `streamParts` is looked at
 * through a descriptor opened as output-file.ts opens it (the job's own regular file, no link
 * followed); each whole part the command has written well past is sent, from the second part on.
 * What is stored is decided by the final file only: `finish` compares each part sent with the file
 * as it is once the command has exited, so a muxer that goes back to rewrite (MP4's sizes, Matroska's
 * cues, `+faststart` moving everything) costs parts sent again, never a wrong object.
 */
export function startOutputStreams(
  req: RunnerJobRequest,
  folder: JobFolder,
  settings: RunnerSettings,
  canceled: AbortSignal,
  deadline: number,
): OutputStreams {
  // Nothing here outlives the job: a cancel or its deadline stops every call.
  const ended = AbortSignal.any([canceled, AbortSignal.timeout(Math.max(0, deadline - Date.now()))]);
  const streams = new Map<string, Stream>(
    req.outputs
      .filter((o) => o.kind !== "directory" && !o.destination && o.uploadToken && partsWellFormed(o.streamParts))
      .map((output) => [
        output.name,
        {
          output,
          parts: outputPartsClient(output, settings),
          partBytes: output.streamParts!.partSizeBytes,
          opened: null,
          uploadId: null,
          sent: new Map(),
          next: 2,
          busy: null,
          sending: new AbortController(),
          stopped: false,
          completed: false,
        },
      ]),
  );
  let outDir: Promise<OpenedDir> | null = null;
  const watch = async (s: Stream) => {
    outDir ??= openTrustedDir(join(folder.root, "out"));
    const dir = await outDir;
    const name = basename(folder.hostPath(s.output.name)!);
    if (s.opened && !(await sameFile(dir, name, s.opened))) {
      // Replaced (a muxer that writes aside and renames): a deleted file held open would still fill the job's disk.
      await s.opened.handle.close().catch(() => {});
      s.opened = null;
    }
    // Not written yet, or not the job's own file (yet): looked at again at the next tick.
    s.opened ??= await openFileIn(dir, name, jobOwner(folder.uid)).catch(() => null);
    if (!s.opened) return;
    const signal = AbortSignal.any([ended, s.sending.signal]);
    for (;;) {
      const { size, blocks } = await s.opened.handle.stat();
      // Past the output limit the job fails LIMIT_EXCEEDED; a sparse file has nothing written to send.
      if (size >= settings.maxOutputBytes) s.stopped = true;
      if (s.stopped || signal.aborted || size < s.next * s.partBytes + SETTLED_BEYOND_BYTES) return;
      if (blocks * 512 < size * WRITTEN_SHARE) return;
      s.uploadId ??= await s.parts.start(signal);
      const n = s.next++;
      s.sent.set(n, await s.parts.send(s.uploadId, n, s.opened.handle, (n - 1) * s.partBytes, s.partBytes, signal));
    }
  };
  const timer = streams.size
    ? setInterval(() => {
        for (const s of streams.values()) {
          if (s.busy || s.stopped) continue;
          // Storage refused or failed: no more parts now; the output is stored after the command (`finish`).
          s.busy = watch(s)
            .catch(() => {
              s.stopped = true;
            })
            .finally(() => (s.busy = null));
        }
      }, OUTPUT_WATCH_INTERVAL_MS)
    : undefined;

  const stop = async (s: Stream) => {
    s.stopped = true;
    // A part still on its way is dropped (and sent again from the final file): it could be on a stalled link.
    s.sending.abort();
    await s.busy;
    await s.opened?.handle.close().catch(() => {});
    s.opened = null;
  };

  return {
    async finish(name, file) {
      const s = streams.get(name);
      if (!s) return null;
      await stop(s);
      const count = Math.ceil(file.size / s.partBytes);
      if (!s.uploadId || s.sent.size === 0 || count < 2 || ended.aborted) return null;
      try {
        const size = await finishOutputParts(s.parts, s.uploadId, s.sent, file, s.partBytes, ended);
        if (size !== file.size) throw new Error(`storage holds ${size} bytes of ${file.size}`);
        s.completed = true;
        return size;
      } catch {
        return null;
      }
    },
    async close() {
      clearInterval(timer);
      await Promise.all(
        [...streams.values()].map(async (s) => {
          await stop(s);
          if (s.uploadId && !s.completed) await s.parts.abort(s.uploadId).catch(() => {});
        }),
      );
      if (outDir) await (await outDir.catch(() => null))?.handle.close().catch(() => {});
    },
  };
}

/** Whether the name in the job's `out/` is still the file held open (not unlinked, not replaced). */
async function sameFile(dir: OpenedDir, name: string, opened: OpenedFile): Promise<boolean> {
  const [named, held] = await Promise.all([lstat(join(dir.at, name)).catch(() => null), opened.handle.stat()]);
  return named !== null && named.ino === held.ino && named.dev === held.dev;
}

/** A part size no smaller than storage takes (a zero would send empty parts forever), an HTTP prefix. */
function partsWellFormed(p: RunnerOutput["streamParts"]): boolean {
  return (
    p !== undefined &&
    Number.isSafeInteger(p.partSizeBytes) &&
    p.partSizeBytes >= MIN_PART_BYTES &&
    typeof p.url === "string" &&
    /^https?:\/\//.test(p.url)
  );
}
