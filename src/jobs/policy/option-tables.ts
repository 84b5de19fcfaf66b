/*
 * What clients may pass to ffmpeg/ffprobe. Options are allowlisted: ffmpeg accepts hundreds of
 * codec and format AVOptions as `-name`, several of which write files or open sockets, so an
 * unknown option is refused rather than guessed at. Published at GET /v1/policy (docs/security.md).
 */

/** Options that take no value. */
export const FFMPEG_FLAGS = [
  "an", "vn", "sn", "dn", "shortest", "y", "hide_banner", "nostats", "stats", "copyts", "start_at_zero",
  "accurate_seek", "noaccurate_seek", "re", "ignore_unknown", "autorotate", "noautorotate", "copyinkf", "nostdin",
  "bitexact", "xerror", "version", "buildconf", "formats", "codecs", "encoders", "decoders", "filters", "pix_fmts",
] as const;

/** Options that take one value (checked further where the value matters). */
export const FFMPEG_VALUE_OPTIONS = [
  // codecs, quality, rate control
  "c", "codec", "vcodec", "acodec", "scodec", "b", "ab", "vb", "crf", "qp", "q", "qscale", "qmin", "qmax", "preset", "tune",
  "profile", "level", "pix_fmt", "g", "keyint_min", "bf", "refs", "sc_threshold", "maxrate", "minrate", "bufsize",
  "rc_lookahead", "force_key_frames", "x264-params", "x264opts", "x265-params", "cpu-used", "deadline", "row-mt",
  "tile-columns", "lag-in-frames", "auto-alt-ref", "quality", "speed", "compression_level", "lossless", "method",
  "strict", "threads", "filter_threads", "filter_complex_threads", "aq-mode", "cq", "b_strategy", "coder", "trellis",
  "vbr", "application", "sws_flags", "err_detect",
  // bitstream filters, from an allowlist (bitstream-filters.ts)
  "bsf",
  // video and audio shape
  "r", "s", "aspect", "ar", "ac", "sample_fmt", "channel_layout", "vsync", "fps_mode", "async", "frames", "vframes",
  "aframes", "dframes", "field_order", "top", "color_primaries", "color_trc", "colorspace", "color_range",
  // filters (the graph is checked separately)
  "vf", "af", "filter", "filter_complex", "lavfi",
  // mapping, timing, metadata
  "map", "map_metadata", "map_chapters", "ss", "t", "to", "sseof", "itsoffset", "output_ts_offset", "itsscale", "metadata", "disposition",
  "tag", "vtag", "atag", "stag", "timecode", "avoid_negative_ts", "max_muxing_queue_size", "muxdelay", "muxpreload",
  "max_interleave_delta", "enc_time_base", "copytb", "stream_loop", "loop", "framerate", "start_number", "update",
  // two-pass encoding: the pass log goes to the job's work folder, or to a scratch file
  "pass", "passlogfile",
  // HLS into a directory output (paths checked: segment names inside the directory, plain names beside the playlist)
  "hls_time", "hls_init_time", "hls_list_size", "hls_playlist_type", "hls_segment_type", "hls_flags", "hls_segment_filename",
  "hls_fmp4_init_filename", "hls_start_number_source", "master_pl_name", "var_stream_map",
  // the segment muxer into a directory output (its list inside the directory, like HLS segments)
  "segment_time", "segment_times", "segment_frames", "segment_time_delta", "segment_format", "segment_list",
  "segment_list_type", "segment_list_size", "segment_start_number", "reset_timestamps", "break_non_keyframes",
  // containers
  "f", "movflags", "brand", "frag_duration", "min_frag_duration", "reserved_moov_size", "video_track_timescale",
  "id3v2_version", "write_id3v1", "write_xing", "fflags", "flags", "analyzeduration", "probesize", "fpsprobesize",
  // diagnostics
  "loglevel", "v", "stats_period",
  // inputs
  "i",
] as const;

export const FFPROBE_FLAGS = [
  "show_format", "show_streams", "show_frames", "show_packets", "show_chapters", "show_programs", "show_error",
  "show_private_data", "show_program_version", "show_library_versions", "count_frames", "count_packets", "pretty",
  "sexagesimal", "unit", "prefix", "byte_binary_prefix", "hide_banner", "bitexact", "version",
] as const;

export const FFPROBE_VALUE_OPTIONS = [
  "show_entries", "select_streams", "print_format", "of", "output_format", "read_intervals", "loglevel", "v", "i", "f",
  "analyzeduration", "probesize", "fflags",
] as const;

/** Refused options that take no value (the rest of REFUSED_OPTIONS take one). */
export const REFUSED_FLAGS = ["report", "vstats", "show_data", "show_data_hash", "dump", "hex", "stdin"] as const;

/** Options refused with a reason; anything else unknown is refused as unsupported. */
export const REFUSED_OPTIONS: Record<string, string> = {
  protocol_whitelist: "the service sets the protocol whitelist",
  protocol_blacklist: "the service sets the protocol whitelist",
  format_whitelist: "the service sets the format whitelist",
  codec_whitelist: "the service sets the allowed codecs",
  max_pixels: "the service sets the pixel limit",
  fs: "the service sets the output size limit",
  safe: "concat options are not available",
  allowed_extensions: "playlist options are not available",
  listen: "listening for connections is not allowed",
  method: "network options are not available",
  headers: "network options are not available",
  user_agent: "network options are not available",
  cookies: "network options are not available",
  filter_script: "filter scripts read files: pass the graph inline",
  filter_complex_script: "filter scripts read files: pass the graph inline",
  report: "writes a side file",
  progress: "the service collects progress itself",
  vstats: "writes a side file",
  vstats_file: "writes a side file",
  vstats_version: "writes a side file",
  attach: "reads a file outside the job",
  dump_attachment: "writes files named by the input",
  sdp_file: "writes a side file",
  init_hw_device: "devices are not available",
  hwaccel: "hardware acceleration is not available",
  hwaccel_device: "devices are not available",
  filter_hw_device: "devices are not available",
  o: "ffprobe writes its output to stdout only",
  show_data: "dumps raw input bytes",
  show_data_hash: "not available",
  dump: "not available",
  hex: "not available",
  stdin: "the service runs without stdin",
  timelimit: "the service enforces the time limit",
};

/** Formats (-f) a job may name: files only; no devices, network or concat; HLS and segments only into a directory output. */
export const ALLOWED_FORMATS = [
  "mp4", "mov", "ipod", "3gp", "matroska", "webm", "avi", "flv", "mpegts", "mpeg", "mp3", "mp2", "wav", "flac", "ogg",
  "oga", "opus", "adts", "ac3", "eac3", "caf", "aiff", "au", "wv", "gif", "apng", "webp", "image2", "mjpeg", "h264",
  "hevc", "rawvideo", "s16le", "s16be", "s24le", "s32le", "f32le", "f64le", "u8", "mulaw", "alaw", "srt", "webvtt", "ass",
  "null", "md5", "framemd5", "crc", "framecrc", "hash", "framehash", "ffmetadata", "ismv", "m4a", "hls", "segment",
  "stream_segment", "ssegment",
] as const;

/** What to use instead of a refused format people reach for, added to the refusal. */
export const REFUSED_FORMAT_HINTS: Record<string, string> = {
  concat: "the concat demuxer opens files a list names: use the concat filter (-filter_complex concat=n=2:v=1:a=1) or the concat preset",
  lavfi: "use a source filter inside -filter_complex instead (color, sine, testsrc… with d=)",
  dash: "use -f hls into a directory output",
  tee: "name each output separately, with its own options",
  image2pipe: "name an image-sequence output like frame_%04d.png in a directory output",
};

/** Formats that write many files: only into a directory output, and never read as an input. */
export const DIRECTORY_FORMATS = ["hls", "segment", "stream_segment", "ssegment"] as const;

/** `-hls_flags` a job may set: none reads files, names paths outside the playlist's folder or deletes. */
export const ALLOWED_HLS_FLAGS = [
  "single_file", "independent_segments", "split_by_time", "program_date_time", "omit_endlist", "round_durations",
  "discont_start", "temp_file", "iframes_only",
] as const;

/** Demuxers the runner lets ffmpeg pick for inputs (`-format_whitelist`): content decides the format, not the name. */
export const INPUT_FORMAT_WHITELIST = [
  "mov", "mp4", "m4a", "3gp", "3g2", "mj2", "matroska", "webm", "avi", "flv", "mpegts", "mpeg", "mpegps", "mpegvideo",
  "mp3", "wav", "flac", "ogg", "aac", "ac3", "eac3", "caf", "aiff", "au", "wv", "amr", "gif", "image2", "png_pipe",
  "jpeg_pipe", "webp_pipe", "bmp_pipe", "tiff_pipe", "gif_pipe", "mjpeg", "h264", "hevc", "m4v", "asf", "srt", "ass",
  "webvtt", "s16le", "f32le", "u8", "rawvideo", "yuv4mpegpipe", "dv", "mxf", "nut", "ivf", "w64", "tta", "ape", "mpc",
  "dts", "truehd", "flv", "live_flv", "apng", "webp",
] as const;

/** Largest frame ffmpeg may decode (width × height): stops decompression bombs. 8K. */
export const MAX_PIXELS = 7680 * 4320;
/** The biggest `-stream_loop` count accepted (-1, forever, is refused). */
export const MAX_STREAM_LOOP = 100;

/** ffmpeg's progress reports come this often at most: live progress and the runner's stall watch read them. */
export const MAX_STATS_PERIOD_SECONDS = 10;
