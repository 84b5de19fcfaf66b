/** Keeps the first `maxBytes` of a stream (stdout) and reports whether more was cut. */
export function createHeadBuffer(maxBytes: number) {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  return {
    push(chunk: Buffer) {
      if (size >= maxBytes) {
        truncated = true;
        return;
      }
      const take = chunk.subarray(0, maxBytes - size);
      if (take.length < chunk.length) truncated = true;
      chunks.push(take);
      size += take.length;
    },
    text: () => Buffer.concat(chunks).toString("utf8") + (truncated ? "\n[output truncated]" : ""),
  };
}

/** Keeps only the last `maxBytes` of a stream (stderr), where ffmpeg puts the reason it failed. */
export function createTailBuffer(maxBytes: number) {
  let buf = Buffer.alloc(0);
  let dropped = false;
  return {
    push(chunk: Buffer) {
      buf = Buffer.concat([buf, chunk]);
      if (buf.length > maxBytes) {
        buf = buf.subarray(buf.length - maxBytes);
        dropped = true;
      }
    },
    text: () => (dropped ? "[earlier output dropped]\n" : "") + buf.toString("utf8"),
  };
}
