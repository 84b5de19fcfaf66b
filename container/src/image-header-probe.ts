import { MAX_PIXELS } from "../../src/jobs/policy/option-tables.ts";
import type { OpenedFile } from "./output-file.ts";
import type { ProbeJson } from "./probe.ts";

/**
 * What ffprobe would say of a still JPEG or PNG output, read from its header by the runner instead of
 * a second sandboxed ffprobe (~110 ms of CPU each, nearly all in the dynamic linker: docs/benchmarks.md).
 * Only where ffprobe's answer follows from the header alone; anything else is null, and the output
 * is probed by ffprobe as before. test/runner/image-header-probe.test.ts holds each case against the
 * runner's own ffprobe of the same file, so a change in ffmpeg's probing fails it.
 *
 * - JPEG (`.jpg`/`.jpeg`): libavformat's image2 demuxer, picked by the extension (score 50), unless its
 *   jpeg_pipe prober sees the image end within the first 2,048 bytes (score 51): so only files over
 *   2,048 bytes. One frame at image2's default 25 fps: 0.04 s, and a bit rate of size × 8 / 0.04.
 *   Baseline, extended and progressive 8-bit frames of 1 or 3 components; others are left to ffprobe.
 * - PNG (`.png`): png_pipe, by content (score 99), unless an `acTL` chunk before the image data makes
 *   it an APNG (`apng`, score 100): so only files whose chunks reach `IDAT` within the first 2,048
 *   bytes (what the prober sees first) without one. No duration, no bit rate.
 * The file is the one the job wrote (hostile, maybe): every read is bounded, every length checked.
 */
export async function imageHeaderProbe(file: OpenedFile, fileName: string): Promise<ProbeJson | null> {
  const kind = headerKind(fileName);
  if (!kind) return null;
  const head = Buffer.alloc(Math.min(file.size, PROBE_BYTES));
  const { bytesRead } = await file.handle.read(head, 0, head.length, 0);
  const bytes = head.subarray(0, bytesRead);
  const size = kind === "png" ? pngSize(bytes) : file.size > PROBE_BYTES ? jpegSize(bytes) : null;
  if (!size || size.width * size.height > MAX_PIXELS) return null;
  const stream = {
    index: 0,
    codec_type: "video",
    codec_name: kind === "png" ? "png" : "mjpeg",
    width: size.width,
    height: size.height,
    r_frame_rate: "25/1",
    avg_frame_rate: "25/1",
  };
  if (kind === "png") return { format: { format_name: "png_pipe" }, streams: [stream] };
  return {
    format: { format_name: "image2", duration: "0.040000", bit_rate: String(file.size * 200) },
    streams: [stream],
  };
}

/** Whether an output of this name may be probed from its header: ffprobe is not started for it beside the command. */
export function headerKind(fileName: string): "jpg" | "png" | null {
  // image2 reads a name with a %d pattern as a numbered sequence.
  if (fileName.includes("%")) return null;
  const ext = /\.([a-z]+)$/i.exec(fileName)?.[1]?.toLowerCase();
  return ext === "png" ? "png" : ext === "jpg" || ext === "jpeg" ? "jpg" : null;
}

/** libavformat's first probe buffer (PROBE_BUF_MIN): what its probers see when they pick a demuxer. */
const PROBE_BYTES = 2048;
type Size = { width: number; height: number };

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function pngSize(b: Buffer): Size | null {
  if (b.length < 33 || !b.subarray(0, 8).equals(PNG_SIGNATURE)) return null;
  if (b.readUInt32BE(8) !== 13 || b.toString("latin1", 12, 16) !== "IHDR") return null;
  const width = b.readUInt32BE(16);
  const height = b.readUInt32BE(20);
  const [depth, colorType, compression, filter, interlace] = [b[24], b[25], b[26], b[27], b[28]];
  if (!width || !height || width > 0x7fffffff || height > 0x7fffffff) return null;
  if (!PNG_DEPTHS[colorType]?.includes(depth) || compression !== 0 || filter !== 0 || interlace > 1) return null;
  // Chunks after IHDR, up to the image data: an acTL among them makes it an APNG.
  for (let at = 33; at + 8 <= b.length; ) {
    const length = b.readUInt32BE(at);
    const type = b.toString("latin1", at + 4, at + 8);
    if (type === "IDAT") return { width, height };
    if (type === "acTL" || type === "IEND" || length > 0x7fffffff) return null;
    at += 12 + length;
  }
  return null;
}

/** Bit depths each PNG color type allows (the PNG specification, 11.2.2). */
const PNG_DEPTHS: Record<number, number[]> = {
  0: [1, 2, 4, 8, 16],
  2: [8, 16],
  3: [1, 2, 4, 8],
  4: [8, 16],
  6: [8, 16],
};

/** Start of frame markers of baseline, extended and progressive Huffman JPEG: what FFmpeg's mjpeg decodes. */
const PLAIN_SOF = new Set([0xc0, 0xc1, 0xc2]);

function jpegSize(b: Buffer): Size | null {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8 || b[2] !== 0xff) return null;
  // Marker segments up to the first frame header: each is FF, a marker, and a length that counts itself.
  for (let at = 2; at + 4 <= b.length; ) {
    if (b[at] !== 0xff) return null;
    const marker = b[at + 1];
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    const length = b.readUInt16BE(at + 2);
    if (length < 2) return null;
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (!PLAIN_SOF.has(marker) || at + 10 > b.length) return null;
      const [precision, height, width, components] = [
        b[at + 4],
        b.readUInt16BE(at + 5),
        b.readUInt16BE(at + 7),
        b[at + 9],
      ];
      if (precision !== 8 || !width || !height || (components !== 1 && components !== 3)) return null;
      return { width, height };
    }
    // Only the segments that may come before a frame header: tables, restart interval, application data, comments.
    if (
      !(marker === 0xdb || marker === 0xc4 || marker === 0xdd || (marker >= 0xe0 && marker <= 0xef) || marker === 0xfe)
    )
      return null;
    at += 2 + length;
  }
  return null;
}
