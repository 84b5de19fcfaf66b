import { muxerForFileName } from "../policy/output-extensions.ts";
import type { OutputChecks } from "./output-checks.ts";

/**
 * Formats whose files do not say what they hold (raw samples and pixels, metadata text, a playlist):
 * ffprobe cannot read them back untold, so "readable" would fail a good output.
 */
const NOT_SELF_DESCRIBING = new Set(["rawvideo", "s16le", "u8", "mulaw", "alaw", "ffmetadata", "hls"]);
/**
 * Of the still-image formats (ffmpeg's image2 muxer), those the runner's probe reads back: it reads
 * outputs as it reads inputs, with media demuxers only, and the others are found by a "_pipe" demuxer
 * it does not allow (test/runner/readable-default.test.ts holds this list to the binary, both ways).
 */
const PROBED_IMAGE_EXTENSIONS = new Set(["bmp", "jpeg", "jpg", "ljpg", "pam", "png", "tga", "tif", "tiff", "avif"]);

/**
 * The checks an output is measured against: the ones it (or its preset) declared, which replace the
 * default; else `readable`, the one check that cannot be wrong, for a file whose name picks a format
 * that describes itself (one written with `-f` under another name is not guessed at). Directory
 * outputs have none.
 */
export function checksToRun(output: {
  fileName: string;
  kind?: "directory";
  checks?: OutputChecks;
}): OutputChecks | undefined {
  if (output.kind === "directory") return undefined;
  if (output.checks) return output.checks;
  const muxer = muxerForFileName(output.fileName);
  if (muxer === null || NOT_SELF_DESCRIBING.has(muxer)) return undefined;
  const extension = output.fileName.slice(output.fileName.lastIndexOf(".") + 1).toLowerCase();
  return muxer !== "image2" || PROBED_IMAGE_EXTENSIONS.has(extension) ? { readable: true } : undefined;
}
