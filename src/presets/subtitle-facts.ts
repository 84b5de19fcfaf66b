import { MAX_PIXELS } from "../jobs/policy/option-tables.ts";

/**
 * A subtitle track: `text` (SubRip, ASS, WebVTT, MP4's timed text: a player draws it, ffmpeg converts it
 * between formats), `bitmap` (Blu-ray's PGS, DVB, DVD: pictures that can only be shown or burned in), or
 * `unsupported` (a codec this ffmpeg cannot decode: ffprobe says `unknown`, or one in neither list).
 * `language` is its ISO 639 tag when it has a well-formed one; `width` and `height` a bitmap track's
 * canvas, as ffprobe read it within the pixel limit (null when it could not).
 * Zod-free and dependency-free: the runner imports it.
 */
export type SubtitleFacts = {
  codec: string;
  kind: "text" | "bitmap" | "unsupported";
  language: string | null;
  width: number | null;
  height: number | null;
};

/**
 * Subtitle codecs ffmpeg decodes to text, and those it decodes to pictures; test/runner/value-tables.test.ts
 * holds both against the installed ffmpeg's decoders. A codec in neither is `unsupported`.
 */
export const TEXT_SUBTITLE_CODECS = new Set([
  "subrip",
  "srt",
  "ass",
  "ssa",
  "webvtt",
  "mov_text",
  "text",
  "microdvd",
  "subviewer",
  "subviewer1",
  "sami",
  "realtext",
  "jacosub",
  "mpl2",
  "pjs",
  "vplayer",
  "stl",
  "eia_608",
]);
export const BITMAP_SUBTITLE_CODECS = new Set([
  "hdmv_pgs_subtitle",
  "dvb_subtitle",
  "dvd_subtitle",
  "xsub",
  "dvb_teletext",
]);

const dimension = (v: unknown): number | null => {
  const n = typeof v === "number" ? v : Number(v);
  return Number.isInteger(n) && n > 0 ? n : null;
};

export function subtitleFactsOf(s: Record<string, unknown>): SubtitleFacts {
  const codec = String(s.codec_name ?? "unknown");
  const language = String((s.tags as Record<string, unknown> | undefined)?.language ?? "");
  const [width, height] = [dimension(s.width), dimension(s.height)];
  const sized = width !== null && height !== null && width * height <= MAX_PIXELS;
  return {
    codec,
    kind: TEXT_SUBTITLE_CODECS.has(codec) ? "text" : BITMAP_SUBTITLE_CODECS.has(codec) ? "bitmap" : "unsupported",
    language: /^[a-z]{2,3}$/.test(language) ? language : null,
    width: sized ? width : null,
    height: sized ? height : null,
  };
}
