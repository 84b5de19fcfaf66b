/**
 * Bitstream filters (`-bsf:v h264_mp4toannexb`, `-bsf:a aac_adtstoasc`) rewrite packets in memory
 * between demuxer and muxer. Every one in Debian's ffmpeg 5.1 is here; none has an option that names a
 * file, and their string options are listed by name below. test/runner/value-tables.test.ts checks
 * both against the installed binary, so a filter or string option an upgrade adds is refused until
 * someone classifies it.
 */
export const ALLOWED_BITSTREAM_FILTERS = [
  "aac_adtstoasc",
  "av1_frame_merge",
  "av1_frame_split",
  "av1_metadata",
  "chomp",
  "dump_extra",
  "dca_core",
  "dv_error_marker",
  "eac3_core",
  "extract_extradata",
  "filter_units",
  "h264_metadata",
  "h264_mp4toannexb",
  "h264_redundant_pps",
  "hapqa_extract",
  "hevc_metadata",
  "hevc_mp4toannexb",
  "imxdump",
  "mjpeg2jpeg",
  "mjpegadump",
  "mp3decomp",
  "mpeg2_metadata",
  "mpeg4_unpack_bframes",
  "mov2textsub",
  "noise",
  "null",
  "opus_metadata",
  "pcm_rechunk",
  "pgs_frame_merge",
  "prores_metadata",
  "remove_extra",
  "setts",
  "text2movsub",
  "trace_headers",
  "truehd_core",
  "vp9_metadata",
  "vp9_raw_reorder",
  "vp9_superframe",
  "vp9_superframe_split",
] as const;

/** The string options of allowed bitstream filters: unit-type lists, SEI text and timestamp expressions, no paths. */
export const BITSTREAM_FILTER_STRING_OPTIONS: Record<string, readonly string[]> = {
  filter_units: ["pass_types", "remove_types"],
  h264_metadata: ["sei_user_data"],
  noise: ["amount", "drop"],
  setts: ["ts", "pts", "dts", "duration"],
};

const ALLOWED = new Set<string>(ALLOWED_BITSTREAM_FILTERS);

/**
 * Why a `-bsf` value is refused, or null. Its syntax is av_bsf_list_parse_str's: filters split by
 * `,`, each `name` or `name=key=value:key=value`.
 */
export function refusedBitstreamFilters(chain: string): string | null {
  for (const item of chain.split(",")) {
    const name = item.split("=")[0].trim();
    if (!ALLOWED.has(name)) return `bitstream filter "${name}" is not allowed (GET /v1/policy lists the ones that are)`;
  }
  return chain.includes("{{") ? "placeholders do not belong in -bsf" : null;
}
