import { readFileSync, writeFileSync } from "node:fs";

/** Matroska's Duration element (Segment Info), in timecode-scale units: ms at ffmpeg's default scale. */
const MATROSKA_DURATION_ID = Buffer.from([0x44, 0x89]);
/** The element's size byte for an 8-byte float, as ffmpeg's muxer writes it. */
const FLOAT64_SIZE = 0x88;

/**
 * A copy of a Matroska file whose header claims `seconds` of media, whatever it holds: the hostile file
 * an attack pass used (ffprobe reports the claim as the format's duration; the clusters are untouched, so
 * ffmpeg still decodes the real length). Throws if the file has no 8-byte Duration where ffmpeg puts it.
 */
export function withClaimedDuration(source: string, target: string, seconds: number): void {
  const bytes = readFileSync(source);
  const at = bytes.indexOf(MATROSKA_DURATION_ID);
  if (at < 0 || bytes[at + 2] !== FLOAT64_SIZE) throw new Error(`${source}: no 8-byte Matroska Duration element`);
  bytes.writeDoubleBE(seconds * 1000, at + 3);
  writeFileSync(target, bytes);
}
