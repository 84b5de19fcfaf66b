import { MAX_PIXELS } from "../../src/jobs/policy/option-tables.ts";
import type { OpenedFile } from "./output-file.ts";
import type { ProbeJson } from "./probe.ts";

/**
 * What ffprobe would say of a still PNG output, read from its header by the runner instead of a second
 * sandboxed ffprobe (~110 ms of CPU each, nearly all in the dynamic linker: docs/benchmarks.md). Only
 * where ffprobe's answer follows from the header alone; anything else is null, and the output is probed
 * by ffprobe as before. test/runner/png-header-probe.test.ts holds each case against the runner's own
 * ffprobe of the same file, so a change in ffmpeg's probing fails it.
 *
 * png_pipe picks a PNG by its content (score 99) unless the APNG prober sees an `acTL` chunk, or a
 * second `IHDR`, before the image data (score 100): so only files whose chunks reach `IDAT` within the
 * first 2,048 bytes (what the probers see first) without either. ffmpeg's decoder then refuses what
 * `av_image_check_size` refuses and an `IDAT` longer than the file: those are left to ffprobe too.
 * One frame at 25 fps; no duration, no bit rate.
 *
 * Not JPEG: an attack pass found JPEGs whose header says one thing and ffmpeg another, out of reach of
 * a header read (the decoder takes the last frame header before the image's end, anywhere in the file;
 * probers for other formats find start codes in comment segments and tables; the decoder's own checks).
 * The file is the one the job wrote (hostile, maybe): one bounded read, every length checked.
 */
export async function pngHeaderProbe(file: OpenedFile, fileName: string): Promise<ProbeJson | null> {
  if (!readsHeader(fileName)) return null;
  const head = Buffer.alloc(Math.min(file.size, PROBE_BYTES));
  const { bytesRead } = await file.handle.read(head, 0, head.length, 0);
  const size = pngSize(head.subarray(0, bytesRead), file.size);
  if (!size || size.width * size.height > MAX_PIXELS || !decoderTakes(size)) return null;
  const stream = {
    index: 0,
    codec_type: "video",
    codec_name: "png",
    width: size.width,
    height: size.height,
    r_frame_rate: "25/1",
    avg_frame_rate: "25/1",
  };
  return { format: { format_name: "png_pipe" }, streams: [stream] };
}

/**
 * Whether an output of this name (as stored in the job's folder: what ffprobe would be given) is read
 * from its header: no ffprobe is started for it beside the command.
 */
export function readsHeader(fileName: string): boolean {
  return /\.png$/i.test(fileName) && !fileName.includes("%");
}

/** libavformat's first probe buffer (PROBE_BUF_MIN): what its probers see when they pick a demuxer. */
const PROBE_BYTES = 2048;
type Size = { width: number; height: number };

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Bit depths each PNG color type allows (the PNG specification, 11.2.2). */
const PNG_DEPTHS: Record<number, number[]> = {
  0: [1, 2, 4, 8, 16],
  2: [8, 16],
  3: [1, 2, 4, 8],
  4: [8, 16],
  6: [8, 16],
};

function pngSize(b: Buffer, fileSize: number): Size | null {
  if (b.length < 33 || !b.subarray(0, 8).equals(PNG_SIGNATURE)) return null;
  if (b.readUInt32BE(8) !== 13 || b.toString("latin1", 12, 16) !== "IHDR") return null;
  const width = b.readUInt32BE(16);
  const height = b.readUInt32BE(20);
  const [depth, colorType, compression, filter, interlace] = [b[24], b[25], b[26], b[27], b[28]];
  if (!width || !height || width > 0x7fffffff || height > 0x7fffffff) return null;
  if (!PNG_DEPTHS[colorType]?.includes(depth) || compression !== 0 || filter !== 0 || interlace > 1) return null;
  // The chunks after IHDR, up to the image data (each: length, type, data, CRC).
  for (let at = 33; at + 8 <= b.length; ) {
    const length = b.readUInt32BE(at);
    const type = b.toString("latin1", at + 4, at + 8);
    if (type === "IDAT") return at + 12 + length <= fileSize ? { width, height } : null;
    if (type === "acTL" || type === "IHDR" || type === "IEND" || length > 0x7fffffff) return null;
    at += 12 + length;
  }
  return null;
}

const INT_MAX = 2 ** 31 - 1;

/** libavutil's av_image_check_size (no pixel format): the decoder refuses a frame past it. */
function decoderTakes({ width, height }: Size): boolean {
  const stride = 8 * width + 128 * 8;
  return stride < INT_MAX && stride * (height + 128) < INT_MAX;
}
