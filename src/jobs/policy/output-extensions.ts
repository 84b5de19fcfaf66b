/**
 * The file extensions ffmpeg maps to a muxer the policy allows (its "Common extensions", from
 * `ffmpeg -h muxer=NAME`; test/runner/output-extensions.test.ts checks the table against the binary).
 * An output whose name has none of these and no `-f` before it is a 400 at creation: ffmpeg would
 * otherwise fail at run time with "Unable to choose an output format" on a service path.
 */
export const MUXER_EXTENSIONS: Record<string, readonly string[]> = {
  mp4: ["mp4"], mov: ["mov"], ipod: ["m4v", "m4a", "m4b"], "3gp": ["3gp"], matroska: ["mkv"], webm: ["webm"], avi: ["avi"],
  flv: ["flv"], mpegts: ["ts", "m2t", "m2ts", "mts"], mpeg: ["mpg", "mpeg"], mp3: ["mp3"], mp2: ["mp2", "m2a", "mpa"],
  wav: ["wav"], flac: ["flac"], ogg: ["ogg"], oga: ["oga"], opus: ["opus"], adts: ["aac", "adts"], ac3: ["ac3"], eac3: ["eac3"],
  caf: ["caf"], aiff: ["aif", "aiff", "afc", "aifc"], au: ["au"], wv: ["wv"], gif: ["gif"], apng: ["apng"], webp: ["webp"],
  image2: ["bmp", "dpx", "exr", "jls", "jpeg", "jpg", "jxl", "ljpg", "pam", "pbm", "pcx", "pfm", "pgm", "pgmyuv", "phm", "png", "ppm", "sgi", "tga", "tif", "tiff", "jp2", "j2c", "j2k", "xwd", "sun", "ras", "rs", "im1", "im8", "im24", "sunras", "vbn", "xbm", "xface", "pix", "y", "avif", "qoi"],
  mjpeg: ["mjpg", "mjpeg"], h264: ["h264", "264"], hevc: ["hevc", "h265", "265"], rawvideo: ["yuv", "rgb"], s16le: ["sw"], u8: ["ub"], mulaw: ["ul"], alaw: ["al"], srt: ["srt"],
  webvtt: ["vtt"], ass: ["ass", "ssa"], ffmetadata: ["ffmeta"], ismv: ["ismv", "isma"], hls: ["m3u8"],
};

const BY_EXTENSION = new Map(Object.entries(MUXER_EXTENSIONS).flatMap(([muxer, exts]) => exts.map((e) => [e, muxer] as const)));

/** The muxer ffmpeg picks for a file name by its extension, or null when it would pick none we allow. */
export function muxerForFileName(fileName: string): string | null {
  const dot = fileName.lastIndexOf(".");
  return dot > 0 ? (BY_EXTENSION.get(fileName.slice(dot + 1).toLowerCase()) ?? null) : null;
}
