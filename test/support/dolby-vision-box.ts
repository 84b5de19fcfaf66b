import { readFileSync, writeFileSync } from "node:fs";

/**
 * Tags an HEVC MP4 as Dolby Vision the way a phone's file is tagged: a Dolby Vision configuration
 * record (`dvcC` for profiles up to 7, `dvvC` after, ETSI TS 103 572 / Dolby's "ISOBMFF" spec) inside its
 * `hvc1` sample entry. ffmpeg 5.1 cannot write one, nor the RPU that real files carry beside each frame;
 * a tagged file is what ffprobe and the presets see of it (the stream's "DOVI configuration record").
 * Works on a file whose `moov` comes after `mdat` (ffmpeg's default), so no chunk offset moves.
 */
export function addDolbyVisionRecord(
  file: string,
  record: { profile: number; level: number; compatibility: number },
): void {
  const buf = readFileSync(file);
  const path = ["moov", "trak", "mdia", "minf", "stbl", "stsd", "hvc1"];
  const chain: number[] = [];
  let start = 0;
  let end = buf.length;
  for (const type of path) {
    const at = findBox(buf, start, end, type);
    if (at < 0) throw new Error(`${file}: no ${type} box where expected`);
    chain.push(at);
    const size = buf.readUInt32BE(at);
    // Children start after the header, stsd's version and count, and hvc1's visual sample entry fields.
    start = at + 8 + (type === "stsd" ? 8 : type === "hvc1" ? 78 : 0);
    end = at + size;
  }
  if (findBox(buf, 0, buf.length, "mdat") > chain[0]) throw new Error(`${file}: moov must come after mdat`);
  const box = Buffer.alloc(32);
  box.writeUInt32BE(32, 0);
  box.write(record.profile > 7 ? "dvvC" : "dvcC", 4, "latin1");
  box.writeUInt8(1, 8);
  box.writeUInt8(0, 9);
  // profile (7 bits), level (6), rpu present, enhancement layer present, base layer present.
  box.writeUInt16BE((record.profile << 9) | (record.level << 3) | 0b101, 10);
  box.writeUInt8(record.compatibility << 4, 12);
  const entry = chain[chain.length - 1];
  const entryEnd = entry + buf.readUInt32BE(entry);
  const out = Buffer.concat([buf.subarray(0, entryEnd), box, buf.subarray(entryEnd)]);
  for (const at of chain) out.writeUInt32BE(out.readUInt32BE(at) + box.length, at);
  writeFileSync(file, out);
}

function findBox(buf: Buffer, start: number, end: number, type: string): number {
  for (let at = start; at + 8 <= end; ) {
    const size = buf.readUInt32BE(at);
    if (buf.toString("latin1", at + 4, at + 8) === type) return at;
    if (size < 8) return -1;
    at += size;
  }
  return -1;
}
