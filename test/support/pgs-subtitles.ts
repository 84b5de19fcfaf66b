import { writeFileSync } from "node:fs";

/**
 * A Blu-ray bitmap subtitle stream (PGS, a `.sup` file) drawn by hand, since ffmpeg encodes bitmap
 * subtitles only from bitmaps: each cue a white box with a black border, `width` x `height` at the
 * bottom of a `canvas`, shown from `fromSeconds` until `toSeconds`. The segments as the HDMV
 * Presentation Graphic Stream defines them (PCS, WDS, PDS, ODS, END; ffmpeg's pgssubdec reads them).
 */
export function writePgsSubtitles(
  file: string,
  canvas: { width: number; height: number },
  cues: { fromSeconds: number; toSeconds: number }[],
): void {
  const box = { width: Math.min(200, canvas.width - 8), height: 40 };
  const at = { x: Math.round((canvas.width - box.width) / 2), y: canvas.height - box.height - 8 };
  const parts: Buffer[] = [];
  cues.forEach((cue, n) => {
    const show = Math.round(cue.fromSeconds * 90_000);
    const hide = Math.round(cue.toSeconds * 90_000);
    parts.push(
      segment(show, 0x16, composition(canvas, n * 2, [at])),
      segment(show, 0x17, windowOf(at, box)),
      segment(show, 0x14, palette()),
      segment(show, 0x15, object(box)),
      segment(show, 0x80, Buffer.alloc(0)),
      segment(hide, 0x16, composition(canvas, n * 2 + 1, [])),
      segment(hide, 0x17, windowOf(at, box)),
      segment(hide, 0x80, Buffer.alloc(0)),
    );
  });
  writeFileSync(file, Buffer.concat(parts));
}

function segment(pts90k: number, type: number, body: Buffer): Buffer {
  const head = Buffer.alloc(13);
  head.write("PG", 0, "latin1");
  head.writeUInt32BE(pts90k, 2);
  head.writeUInt32BE(0, 6);
  head.writeUInt8(type, 10);
  head.writeUInt16BE(body.length, 11);
  return Buffer.concat([head, body]);
}

/** A presentation composition: an epoch start showing the objects at their places, or none (clearing). */
function composition(canvas: { width: number; height: number }, number: number, places: { x: number; y: number }[]) {
  const b = Buffer.alloc(11 + 8 * places.length);
  b.writeUInt16BE(canvas.width, 0);
  b.writeUInt16BE(canvas.height, 2);
  b.writeUInt8(0x10, 4);
  b.writeUInt16BE(number, 5);
  b.writeUInt8(places.length ? 0x80 : 0x00, 7);
  b.writeUInt8(0, 8);
  b.writeUInt8(0, 9);
  b.writeUInt8(places.length, 10);
  places.forEach((p, k) => {
    b.writeUInt16BE(0, 11 + 8 * k);
    b.writeUInt8(0, 13 + 8 * k);
    b.writeUInt8(0, 14 + 8 * k);
    b.writeUInt16BE(p.x, 15 + 8 * k);
    b.writeUInt16BE(p.y, 17 + 8 * k);
  });
  return b;
}

function windowOf(at: { x: number; y: number }, box: { width: number; height: number }) {
  const b = Buffer.alloc(10);
  b.writeUInt8(1, 0);
  b.writeUInt8(0, 1);
  b.writeUInt16BE(at.x, 2);
  b.writeUInt16BE(at.y, 4);
  b.writeUInt16BE(box.width, 6);
  b.writeUInt16BE(box.height, 8);
  return b;
}

/** Entry 1 white, entry 2 black (Y, Cr, Cb, alpha), both opaque. */
function palette() {
  return Buffer.from([0, 0, 1, 235, 128, 128, 255, 2, 16, 128, 128, 255]);
}

/** The box, run-length coded a line at a time: a 4-pixel black border around white. */
function object(box: { width: number; height: number }) {
  const run = (colour: number, length: number) =>
    length < 64 ? [0, 0x80 | length, colour] : [0, 0xc0 | (length >> 8), length & 0xff, colour];
  const lines: number[] = [];
  for (let y = 0; y < box.height; y++) {
    if (y < 4 || y >= box.height - 4) lines.push(...run(2, box.width));
    else lines.push(...run(2, 4), ...run(1, box.width - 8), ...run(2, 4));
    lines.push(0, 0);
  }
  const data = Buffer.from(lines);
  const b = Buffer.alloc(11);
  b.writeUInt16BE(0, 0);
  b.writeUInt8(0, 2);
  b.writeUInt8(0xc0, 3);
  b.writeUIntBE(data.length + 4, 4, 3);
  b.writeUInt16BE(box.width, 7);
  b.writeUInt16BE(box.height, 9);
  return Buffer.concat([b, data]);
}
