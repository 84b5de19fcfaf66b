import { mkdtempSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { indexBeforeMedia } from "../../container/src/mp4-box-order.ts";

const dir = mkdtempSync(join(tmpdir(), "ffjobs-boxes-"));
const box = (type: string, size: number, body = Buffer.alloc(Math.max(0, size - 8))) => {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(size);
  head.write(type, 4, "latin1");
  return Buffer.concat([head, body]);
};
async function order(name: string, bytes: Buffer) {
  writeFileSync(join(dir, name), bytes);
  const handle = await open(join(dir, name));
  try {
    return await indexBeforeMedia(handle, bytes.length);
  } finally {
    await handle.close();
  }
}

/** The faststart check reads an output's top-level boxes itself: sizes are the file's own claims, never trusted. */
describe("an MP4's box order, read through its descriptor", () => {
  it("says whether moov comes before mdat", async () => {
    expect(await order("fast.mp4", Buffer.concat([box("ftyp", 16), box("moov", 24), box("mdat", 32)]))).toBe(true);
    expect(
      await order("slow.mp4", Buffer.concat([box("ftyp", 16), box("free", 8), box("mdat", 32), box("moov", 24)])),
    ).toBe(false);
  });

  it("gives up, without looping or reading past the file, on sizes that lie", async () => {
    // A box claiming 4 bytes (less than its own header), 0 (to the end: nothing follows), a 64-bit size past the end.
    expect(await order("tiny.mp4", Buffer.concat([box("ftyp", 4), box("moov", 8)]))).toBeNull();
    expect(await order("zero.mp4", Buffer.concat([box("ftyp", 0), box("moov", 8)]))).toBeNull();
    const large = Buffer.alloc(16);
    large.writeUInt32BE(1);
    large.write("free", 4, "latin1");
    large.writeBigUInt64BE(1n << 40n, 8);
    expect(await order("large.mp4", Buffer.concat([large, box("moov", 8)]))).toBeNull();
    // Not boxes at all (an MPEG-TS packet), and 64 boxes of padding with no index.
    expect(await order("ts.mp4", Buffer.from([0x47, 0x40, 0x00, 0x10, ...Buffer.alloc(184)]))).toBeNull();
    expect(await order("padding.mp4", Buffer.concat(Array.from({ length: 70 }, () => box("free", 8))))).toBeNull();
  });
});
