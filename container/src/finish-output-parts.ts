import type { OpenedFile } from "./output-file.ts";
import { rangeSha256, type OutputPartsClient, type SentPart } from "./output-parts-client.ts";
import { createSemaphore } from "./semaphore.ts";

/** Parts sent at once when an output is finished (those not sent yet, or changed since). */
const FINISH_CONCURRENCY = 2;

/**
 * Completes an output's upload from its final descriptor: every part sent while it was written whose
 * bytes are still the same (SHA-256 against what was sent) is kept, the others are sent now. The
 * first part that fails stops the rest (none is left sending into an upload the caller then aborts,
 * or reading a descriptor it then closes). Answers the size storage holds.
 */
export async function finishOutputParts(
  parts: OutputPartsClient,
  uploadId: string,
  sentEarly: ReadonlyMap<number, SentPart>,
  file: OpenedFile,
  partBytes: number,
  signal: AbortSignal,
): Promise<number> {
  const failed = new AbortController();
  const sending = AbortSignal.any([signal, failed.signal]);
  const slots = createSemaphore(FINISH_CONCURRENCY);
  const count = Math.ceil(file.size / partBytes);
  const settled = await Promise.allSettled(
    Array.from({ length: count }, async (_, i) => {
      const release = await slots.acquire("", sending);
      try {
        const n = i + 1;
        const start = i * partBytes;
        const length = Math.min(file.size - start, partBytes);
        const early = sentEarly.get(n);
        if (early?.length === length && early.sha256 === (await rangeSha256(file.handle, start, length))) return early;
        return await parts.send(uploadId, n, file.handle, start, length, sending);
      } catch (err) {
        failed.abort();
        throw err;
      } finally {
        release();
      }
    }),
  );
  const refused = settled.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (refused) throw refused.reason;
  const all = settled.map((r) => (r as PromiseFulfilledResult<SentPart>).value);
  return parts.complete(uploadId, all, signal);
}
