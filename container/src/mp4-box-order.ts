import type { FileHandle } from "node:fs/promises";

/** The top-level boxes read before giving up: a real MP4 has a handful (ftyp, free, moov, mdat, …). */
const MAX_TOP_LEVEL_BOXES = 64;
const BOX_TYPE = /^[a-zA-Z0-9 ]{4}$/;

/**
 * Whether an MP4/MOV's index (`moov`) comes before its media (`mdat`), read from its top-level box
 * headers through the output's descriptor (the sizes are the file's own claims, so each is checked to
 * move forward and stay inside it). Null when the file is not ISO boxes, or has neither box.
 */
export async function indexBeforeMedia(handle: FileHandle, fileSize: number): Promise<boolean | null> {
  const header = Buffer.alloc(16);
  let at = 0;
  for (let k = 0; k < MAX_TOP_LEVEL_BOXES && at + 8 <= fileSize; k++) {
    const { bytesRead } = await handle.read(header, 0, 16, at);
    if (bytesRead < 8) return null;
    const type = header.toString("latin1", 4, 8);
    if (!BOX_TYPE.test(type)) return null;
    if (type === "moov") return true;
    if (type === "mdat") return false;
    let size = header.readUInt32BE(0);
    if (size === 1) {
      if (bytesRead < 16) return null;
      const large = header.readBigUInt64BE(8);
      if (large > BigInt(fileSize)) return null;
      size = Number(large);
    }
    // 0 is "to the end of the file": nothing follows it.
    if (size === 0 || size < 8) return null;
    at += size;
  }
  return null;
}
