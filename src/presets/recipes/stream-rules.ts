import type { AudioFacts, MediaFacts, VideoFacts } from "../media-facts.ts";
import { keepHdrFilters, toSdrFilters } from "./tone-map.ts";

/**
 * The rules every preset's outputs follow for the devices they target, in one place:
 * pictures upright (ffmpeg turns them by their rotation before any filter), deinterlaced when the
 * input is interlaced, even dimensions with square pixels, 8-bit 4:2:0 limited range; audio at a
 * standard rate and a channel count the codec and its players take.
 */
export const even = (n: number) => Math.max(2, Math.floor(n / 2) * 2);

/**
 * Scaled to width x height with square pixels; a full-range SDR input is brought to limited range on the
 * way (an HDR one keeps its range for the tone-mapping, which knows it from the probe).
 */
export function scaleTo(v: VideoFacts, width: number, height: number): string {
  return `scale=${width}:${height}${v.fullRange && !v.hdr ? ":out_range=tv" : ""},setsar=1`;
}

/** The last filters of a picture for an 8-bit 4:2:0 output: HDR tone-mapped to SDR, else the pixel format. */
export function sdrPixels(v: VideoFacts): string[] {
  return v.hdr ? toSdrFilters(v) : ["format=yuv420p"];
}

/** The picture's size for a target of at most `maxHeight` lines (never upscaled), even, square pixels. */
export function pictureSize(v: VideoFacts, maxHeight: number | null): { width: number; height: number } {
  const height = even(maxHeight === null ? v.height : Math.min(maxHeight, v.height));
  const width = even(Math.round((height * v.width * v.pixelAspect) / v.height));
  return { width, height };
}

/**
 * The filters that make any input's picture a web or phone picture, `maxHeight` lines at most. `keepHdr`:
 * an HDR input stays HDR in 10 bits (for an encoder that carries it); otherwise it is tone-mapped.
 */
export function webPictureFilters(v: VideoFacts, maxHeight: number | null, keepHdr = false): string[] {
  const { width, height } = pictureSize(v, maxHeight);
  return [
    // send_frame: one frame out per frame in, so durations and frame counts stay the input's.
    ...(v.interlaced ? ["yadif=mode=send_frame"] : []),
    scaleTo(v, width, height),
    ...(keepHdr ? keepHdrFilters(v) : sdrPixels(v)),
  ];
}

/** A frame for a still picture (JPEG, PNG, GIF): deinterlaced when needed, then the caller's filters. */
export function stillPictureFilters(v: VideoFacts): string[] {
  return v.interlaced ? ["yadif=mode=send_frame"] : [];
}

/** Rates every player takes; anything else (88.2 or 96 kHz, odd rates) becomes 48 kHz. */
const STANDARD_RATES = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000];

export function standardRate(a: AudioFacts): number {
  return STANDARD_RATES.includes(a.sampleRate) ? a.sampleRate : 48000;
}

/** An audio encoding: the codec, its bitrate, a standard rate (Opus: always 48 kHz) and at most `maxChannels`. */
export function audioEncoding(
  a: AudioFacts,
  codec: "aac" | "libopus" | "libmp3lame",
  kbps: number,
  maxChannels: number,
): string[] {
  const rate = codec === "libopus" ? 48000 : standardRate(a);
  return [
    "-c:a",
    codec,
    "-b:a",
    `${kbps}k`,
    "-ar",
    String(rate),
    ...(a.channels > maxChannels ? ["-ac", String(maxChannels)] : []),
  ];
}

/**
 * What each container can hold as copied streams, by ffmpeg 5.1's muxers (a codec outside its list
 * is "not currently supported in container" or experimental there). Matroska holds nearly anything.
 */
const HOLDS: Record<string, { video: string[]; audio: string[] } | "anything"> = {
  mp4: {
    video: ["h264", "hevc", "av1", "vp9", "mpeg4", "mpeg2video", "mpeg1video", "mjpeg"],
    audio: ["aac", "mp3", "opus", "ac3", "eac3", "alac", "mp2"],
  },
  mov: {
    video: ["h264", "hevc", "av1", "vp9", "mpeg4", "mpeg2video", "mpeg1video", "mjpeg", "prores", "dnxhd"],
    audio: [
      "aac",
      "mp3",
      "ac3",
      "eac3",
      "alac",
      "mp2",
      "pcm_s16le",
      "pcm_s24le",
      "pcm_s32le",
      "pcm_f32le",
      "pcm_s16be",
      "pcm_s24be",
    ],
  },
  webm: { video: ["vp8", "vp9", "av1"], audio: ["opus", "vorbis"] },
  mkv: "anything",
};

const extensionOf = (fileName: string) => fileName.slice(fileName.lastIndexOf(".") + 1).toLowerCase();
const containerOf = (fileName: string) =>
  (({ m4v: "mp4", m4a: "mp4", "3gp": "mp4", mka: "mkv" }) as Record<string, string>)[extensionOf(fileName)] ??
  extensionOf(fileName);

/** Whether the output file (by its name's container) can hold this stream copied as it is. */
export function canCopy(fileName: string, kind: "video" | "audio", codec: string): boolean {
  const holds = HOLDS[containerOf(fileName)];
  return holds === "anything" || holds?.[kind].includes(codec) === true;
}

/**
 * Seeking to `at` seconds, as options before and after `-i`. An input with an index seeks by it (ffmpeg
 * starts at the key frame before and decodes forward). One without (MPEG-TS) is sought to before the key
 * frame at or before `at` and decoded the rest of the way: a seek there lands on any frame and decodes
 * nothing until the next key frame, so a seek straight to the time often yields no frame at all.
 */
export function seekTo(
  facts: MediaFacts,
  at: number | string,
  keyframe: number | null = null,
): { before: string[]; after: string[] } {
  if (typeof at === "string" || facts.seekIndex) return { before: at === 0 ? [] : ["-ss", String(at)], after: [] };
  const coarse = Math.max(0, keyframe === null ? at - SEEK_DECODE_SECONDS : keyframe - KEYFRAME_SEEK_MARGIN_SECONDS);
  return {
    before: coarse > 0 ? ["-ss", seconds(coarse)] : [],
    after: at - coarse > 0 ? ["-ss", seconds(at - coarse)] : [],
  };
}

/**
 * How far before the time a seek without an index lands when the runner found no key frame for it
 * (the Worker's plan, or a measuring that failed): key frames in broadcast streams are rarely further apart.
 * Where it found one (`keyframe`, input-questions.ts) the seek lands just before that key frame instead,
 * however far back: x264's default puts 10 s between them.
 */
const SEEK_DECODE_SECONDS = 5;

/** How far before a known key frame a seek without an index aims: such a seek lands near, not on, its time. */
export const KEYFRAME_SEEK_MARGIN_SECONDS = 0.5;

export const seconds = (s: number) => String(Math.round(s * 1000) / 1000);

/**
 * Options a copied video needs to stay what it is: a Dolby Vision record goes into an MP4 or MOV only
 * with `-strict unofficial` (ffmpeg 5.1 writes `dvcC`/`dvvC` as an extension there); Matroska keeps it anyway.
 */
export function keepCopiedVideo(fileName: string, v: VideoFacts): string[] {
  return v.dolbyVisionRecord && ["mp4", "mov"].includes(containerOf(fileName)) ? ["-strict", "unofficial"] : [];
}

/** The encoders a re-encoded stream gets in this output: ones its container holds (WebM: VP9 and Opus). */
export function reencoded(fileName: string): { video: string[]; audio: string[] } {
  return containerOf(fileName) === "webm"
    ? { video: vp9Encoding(30), audio: ["-c:a", "libopus", "-b:a", "160k", "-ar", "48000"] }
    : { video: ["-c:v", "libx264", "-preset", "veryfast", "-crf", "18"], audio: ["-c:a", "aac", "-b:a", "192k"] };
}

/**
 * VP9 at constant quality `crf`, at libvpx's realtime speed (its good-quality modes take ten times as long
 * for a few per cent of size); `profile` options (VP9 profile 2 for HDR) go with the codec.
 */
export function vp9Encoding(crf: number, profile: string[] = []): string[] {
  return ["-c:v", "libvpx-vp9", ...profile, "-b:v", "0", "-crf", String(crf)].concat([
    "-deadline",
    "realtime",
    "-cpu-used",
    "8",
    "-row-mt",
    "1",
  ]);
}
