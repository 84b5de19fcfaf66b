/**
 * `-x264-params`, `-x264opts` and `-x265-params`: a string of encoder parameters that libavcodec hands
 * to the encoder's own parser. Some of them read or write files at any path (x264 `stats`, `dump-yuv`,
 * `cqmfile`; x265 `csv`, `analysis-save`, `scaling-list`, ...), and the encoders accept spellings a
 * denylist misses (`dump_yuv`, ` stats`, `no-` prefixes). So keys are parsed the way the encoders do
 * and checked against an allowlist of parameters that only tune the encoding.
 */
const X264 = [
  "keyint", "min-keyint", "scenecut", "bframes", "b-adapt", "b-bias", "b-pyramid", "ref", "rc-lookahead", "aq-mode",
  "aq-strength", "psy", "psy-rd", "deblock", "deblock-alpha", "deblock-beta", "me", "subme", "merange", "trellis", "fast-pskip",
  "dct-decimate", "mixed-refs", "crf", "crf-max", "qp", "qpmin", "qpmax", "qpstep", "bitrate", "vbv-maxrate", "vbv-bufsize",
  "vbv-init", "ratetol", "ipratio", "pbratio", "level", "profile", "open-gop", "nal-hrd", "force-cfr", "colorprim", "transfer",
  "colormatrix", "range", "fullrange", "chromaloc", "threads", "sliced-threads", "lookahead-threads", "weightp", "weightb",
  "mbtree", "cabac", "8x8dct", "partitions", "direct", "slices", "slice-max-size", "slice-max-mbs", "intra-refresh", "tune",
  "preset", "log", "log-level", "pass", "aud", "bluray-compat", "fake-interlaced", "interlaced", "tff", "bff", "overscan",
  "videoformat", "sar", "fps", "frame-packing", "filler", "keyint-min", "qcomp", "cplxblur", "qblur", "chroma-qp-offset",
  "chroma-me", "deadzone-inter", "deadzone-intra", "cqm", "annexb", "repeat-headers",
];
const X265 = [
  "log-level", "keyint", "min-keyint", "scenecut", "bframes", "b-adapt", "b-pyramid", "ref", "crf", "crf-max", "crf-min", "qp",
  "bitrate", "vbv-maxrate", "vbv-bufsize", "vbv-init", "aq-mode", "aq-strength", "psy-rd", "psy-rdoq", "rd", "rdoq-level", "ctu",
  "min-cu-size", "max-tu-size", "tu-intra-depth", "tu-inter-depth", "me", "subme", "merange", "rc-lookahead", "lookahead-slices",
  "sao", "deblock", "strong-intra-smoothing", "hdr-opt", "hdr10", "hdr10-opt", "repeat-headers", "master-display", "max-cll",
  "colorprim", "transfer", "colormatrix", "range", "chromaloc", "level-idc", "high-tier", "profile", "open-gop", "pools",
  "frame-threads", "wpp", "pmode", "pme", "lossless", "tune", "preset", "pass", "cutree", "weightp", "weightb", "rect", "amp",
  "early-skip", "rskip", "fast-intra", "b-intra", "limit-refs", "limit-modes", "tskip", "info", "hrd", "aud", "annexb",
  "temporal-layers", "cbqpoffs", "crqpoffs", "ipratio", "pbratio", "qcomp", "qpstep", "qpmin", "qpmax", "nr-intra", "nr-inter",
  "keyint-min", "sar", "fps", "overscan", "videoformat", "splitrd-skip", "selective-sao", "slices", "uhd-bd", "dhdr10-opt",
  "atc-sei", "pic-struct", "interlace", "field", "radl", "bframe-bias", "fades",
];
const ALLOWED: Record<string, Set<string>> = { "x264-params": new Set(X264), x264opts: new Set(X264), "x265-params": new Set(X265) };

/** The first parameter the encoder would take that is not on the allowlist, or null when all are. */
export function refusedEncoderParam(option: "x264-params" | "x264opts" | "x265-params", value: string): string | null {
  const allowed = ALLOWED[option];
  // libavcodec splits pairs on ':' only (a ',' belongs to a value: deblock=-1,-1) and trims around keys;
  // the encoders read '_' as '-' and a "no-" prefix as false.
  for (const pair of value.split(":")) {
    if (!pair.trim()) continue;
    const key = pair.split("=")[0].trim().toLowerCase().replaceAll("_", "-");
    const bare = key.startsWith("no-") ? key.slice(3) : key;
    if (!allowed.has(key) && !allowed.has(bare)) return key || pair;
  }
  return null;
}

export const ENCODER_PARAM_OPTIONS = new Set(Object.keys(ALLOWED));
