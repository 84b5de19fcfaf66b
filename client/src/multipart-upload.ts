import type { Asset } from "./api-types.ts";

/** Above this size a file is uploaded in parts: resumable part by part, and the only way above 5 GiB. */
export const MULTIPART_THRESHOLD_BYTES = 100 * 1024 * 1024;
const PARTS_AT_ONCE = 4;
/** A part's PUT is tried this often (each time with a fresh URL) before the upload gives up. */
const PART_ATTEMPTS = 4;
const URLS_PER_REQUEST = 100;

/** Bytes `start` to `end` (exclusive) of the file. */
export type ReadPart = (start: number, end: number) => Promise<Blob | Uint8Array>;

export type MultipartApi = {
  partUrls: (id: string, partNumbers: number[]) => Promise<{ parts: { partNumber: number; url: string }[] }>;
  complete: (id: string, parts: { partNumber: number; etag: string }[]) => Promise<Asset>;
  put: (url: string, body: Blob | Uint8Array) => Promise<Response>;
};

/**
 * Sends a multipart upload's parts, a few at once, straight to storage, then completes it. A part
 * whose PUT fails (a dropped connection, an expired URL, a 5xx) is sent again with a fresh URL, up
 * to PART_ATTEMPTS times, without resending the parts that made it.
 */
export async function uploadInParts(
  slot: { id: string; upload: { partSizeBytes: number; partCount: number } },
  size: number,
  read: ReadPart,
  api: MultipartApi,
  onProgress?: (sent: number, total: number) => void,
): Promise<Asset> {
  const { partSizeBytes, partCount } = slot.upload;
  const urls = new Map<number, string>();
  const etags = new Map<number, string>();
  let next = 1;
  let sent = 0;

  let asking: Promise<void> | null = null;
  async function urlFor(partNumber: number, fresh: boolean): Promise<string> {
    if (fresh) {
      for (const p of (await api.partUrls(slot.id, [partNumber])).parts) urls.set(p.partNumber, p.url);
      return urls.get(partNumber)!;
    }
    while (!urls.has(partNumber)) {
      if (asking) await asking;
      else {
        // This part and the next ones without a URL, in one request that the other senders wait for.
        const wanted = [partNumber];
        for (let n = partNumber + 1; n <= partCount && wanted.length < URLS_PER_REQUEST; n++)
          if (!urls.has(n) && !etags.has(n)) wanted.push(n);
        asking = api
          .partUrls(slot.id, wanted)
          .then((r) => {
            for (const p of r.parts) urls.set(p.partNumber, p.url);
          })
          .finally(() => (asking = null));
        await asking;
      }
    }
    return urls.get(partNumber)!;
  }

  async function sendPart(partNumber: number): Promise<void> {
    const start = (partNumber - 1) * partSizeBytes;
    const end = Math.min(size, start + partSizeBytes);
    const body = await read(start, end);
    let lastError = "";
    for (let attempt = 1; attempt <= PART_ATTEMPTS; attempt++) {
      try {
        const res = await api.put(await urlFor(partNumber, attempt > 1), body);
        const etag = res.headers.get("etag");
        if (res.ok && etag) {
          etags.set(partNumber, etag);
          sent += end - start;
          onProgress?.(sent, size);
          return;
        }
        lastError = res.ok ? "storage gave the part no ETag" : `HTTP ${res.status}`;
        await res.body?.cancel();
      } catch (err) {
        lastError = err instanceof Error ? err.message : String(err);
      }
    }
    throw new Error(`part ${partNumber} of the upload failed ${PART_ATTEMPTS} times (${lastError})`);
  }

  async function worker(): Promise<void> {
    while (next <= partCount) await sendPart(next++);
  }
  await Promise.all(Array.from({ length: Math.min(PARTS_AT_ONCE, partCount) }, worker));
  return api.complete(
    slot.id,
    [...etags].map(([partNumber, etag]) => ({ partNumber, etag })),
  );
}

/** Reads a one-way stream as parts, in order: each part is read once, when its turn comes. */
export function partsOfStream(stream: ReadableStream<Uint8Array>): ReadPart {
  const reader = stream.getReader();
  let position = 0;
  let pending: Uint8Array = new Uint8Array(0);
  let queue = Promise.resolve();
  return (start, end) => {
    const part = queue.then(async () => {
      if (start !== position) throw new Error("a streamed upload reads its parts in order");
      const out = new Uint8Array(end - start);
      let filled = 0;
      while (filled < out.length) {
        if (pending.length === 0) {
          const { value, done } = await reader.read();
          if (done) throw new Error(`the stream ended after ${position + filled} bytes, before its declared size`);
          pending = value;
        }
        const take = Math.min(pending.length, out.length - filled);
        out.set(pending.subarray(0, take), filled);
        pending = pending.subarray(take);
        filled += take;
      }
      position = end;
      return out;
    });
    queue = part.then(
      () => {},
      () => {},
    );
    return part;
  };
}
