/**
 * The filters a job may use, by name; every other filter is refused. The list covers what real
 * commands use (test/runner/command-corpus.test.ts) and what FFmpeg API users commonly send.
 * test/runner/filter-tables.test.ts checks it against the installed ffmpeg: every listed filter
 * exists, and every option of theirs that names a file is in FILE_OPTIONS or NOT_FILE_OPTIONS.
 */
export const ALLOWED_FILTERS = [
  // geometry, timing, composition
  "scale", "scale2ref", "crop", "cropdetect", "pad", "tpad", "overlay", "hstack", "vstack", "xstack", "fps", "framerate",
  "trim", "atrim", "setpts", "asetpts", "concat", "split", "asplit", "format", "aformat", "transpose", "rotate", "hflip",
  "vflip", "setsar", "setdar", "null", "anull", "copy", "reverse", "areverse", "select", "aselect", "thumbnail", "tile",
  "zoompan", "xfade", "acrossfade", "fade", "afade", "settb", "asettb", "apad", "loop",
  // text, subtitles, drawing
  "drawtext", "subtitles", "ass", "drawbox", "drawgrid", "delogo", "removelogo",
  // colour and image processing
  "eq", "hue", "curves", "colorchannelmixer", "colorbalance", "colorlevels", "colortemperature", "colorspace", "zscale",
  "lut", "lutrgb", "lutyuv", "lut1d", "lut3d", "haldclut", "negate", "vignette", "unsharp", "boxblur", "gblur", "avgblur",
  "smartblur", "median", "hqdn3d", "nlmeans", "noise", "edgedetect", "chromakey", "colorkey", "alphamerge", "alphaextract",
  "blend", "geq", "selectivecolor", "exposure", "vibrance", "palettegen", "paletteuse",
  // deinterlacing and telecine
  "yadif", "bwdif", "w3fdif", "idet", "fieldorder", "setfield", "interlace", "telecine", "detelecine", "pullup",
  "fieldmatch", "decimate", "mpdecimate",
  // analysis that logs to stderr
  "blackdetect", "blackframe", "freezedetect", "scdet", "silencedetect", "volumedetect", "showinfo", "ashowinfo",
  "signalstats", "ebur128", "astats", "psnr", "ssim",
  // audio
  "volume", "loudnorm", "dynaudnorm", "amix", "amerge", "pan", "aresample", "atempo", "asetrate", "channelsplit",
  "channelmap", "join", "highpass", "lowpass", "bandpass", "bandreject", "equalizer", "bass", "treble", "acompressor",
  "agate", "alimiter", "compand", "silenceremove", "aecho", "chorus", "flanger", "stereotools", "extrastereo", "afftdn",
  "anlmdn", "aloop",
  // audio pictures
  "showwaves", "showwavespic", "showspectrum", "showspectrumpic", "showfreqs", "showvolume", "avectorscope",
  "ahistogram", "histogram", "waveform", "vectorscope",
  // sources: allowed only with a bounded duration (SOURCE_DURATION_OPTIONS)
  "color", "anullsrc", "sine", "testsrc", "testsrc2", "smptebars", "nullsrc",
] as const;

/** Source filters generate frames until told to stop: each needs one of these options, bounded. */
export const SOURCE_DURATION_OPTIONS: Record<string, string[]> = {
  color: ["d", "duration"], anullsrc: ["d", "duration"], sine: ["d", "duration"], testsrc: ["d", "duration"],
  testsrc2: ["d", "duration"], smptebars: ["d", "duration"], nullsrc: ["d", "duration"],
};
/** The longest a source filter may generate. */
export const MAX_SOURCE_SECONDS = 3600;

/**
 * Options of allowed filters that name a file. `placeholderOnly`: the value must be exactly an input
 * placeholder (the job's own file goes there). `refused`: reads or writes files the job did not
 * declare. `positional0` says what a first positional argument is for that filter.
 */
type FileRule = { placeholderOnly?: string[]; refused?: string[]; positional0?: "placeholderOnly" | "refused" };

export const FILE_OPTIONS: Record<string, FileRule> = {
  subtitles: { placeholderOnly: ["filename", "f"], positional0: "placeholderOnly", refused: ["fontsdir"] },
  ass: { placeholderOnly: ["filename", "f"], positional0: "placeholderOnly", refused: ["fontsdir"] },
  drawtext: { placeholderOnly: ["fontfile"], refused: ["textfile"] },
  lut3d: { placeholderOnly: ["file"], positional0: "placeholderOnly" },
  lut1d: { placeholderOnly: ["file"], positional0: "placeholderOnly" },
  removelogo: { placeholderOnly: ["filename", "f"], positional0: "placeholderOnly" },
  curves: { placeholderOnly: ["psfile"], refused: ["plot"] },
  selectivecolor: { placeholderOnly: ["psfile"] },
  psnr: { refused: ["stats_file", "f"], positional0: "refused" },
  ssim: { refused: ["stats_file", "f"], positional0: "refused" },
  paletteuse: { refused: ["debug_kdtree"] },
};

/**
 * Options of allowed filters whose name or description looks like a file but that take none, as
 * the installed ffmpeg describes them (a drift test keeps this honest).
 */
export const NOT_FILE_OPTIONS: Record<string, string[]> = {
  drawtext: ["font", "fontsize", "fontcolor_expr"],
  delogo: ["x", "y", "w", "h"],
  amix: ["weights"],
};
