import { dolbyVisionOf, hdrFactsOf, type HdrFacts } from "./colour-facts.ts";
import { subtitleFactsOf, type SubtitleFacts } from "./subtitle-facts.ts";

/**
 * What a preset needs to know about an input before it plans its command: read from the
 * runner's ffprobe of the file. Zod-free and dependency-free: the runner imports it.
 */
export type VideoFacts = {
  codec: string;
  /** As displayed: after the rotation the file asks for. */
  width: number;
  height: number;
  /** Degrees the picture is turned on display (0, 90, 180, 270). */
  rotation: number;
  pixFmt: string;
  interlaced: boolean;
  /** Frames a second (the average, else the base rate); null when unknown. */
  frameRate: number | null;
  fullRange: boolean;
  /** Pixel aspect (sample aspect ratio) as displayed; 1 for square pixels. */
  pixelAspect: number;
  /** How an HDR picture codes its light (PQ or HLG); null for SDR. */
  hdr: HdrFacts | null;
  /** It carries a Dolby Vision configuration record (an SDR base layer's too), which a copy should keep. */
  dolbyVisionRecord: boolean;
};

export type AudioFacts = { codec: string; sampleRate: number; channels: number };

export type MediaFacts = {
  /** The first picture stream that is a video (cover art is not). */
  video: VideoFacts | null;
  /** The first audio stream. */
  audio: AudioFacts | null;
  /** Every subtitle track, in order: the k-th is ffmpeg's `s:k`. */
  subtitles: SubtitleFacts[];
  /**
   * The most pixels any video stream declares (one never decoded too, whose size no limit checks): the
   * canvas ffmpeg 5.1 draws a bitmap subtitle track on, whatever the track's own size.
   */
  largestVideoPixels: number;
  durationSeconds: number | null;
  /** When the file's timestamps start (MPEG-TS often starts far from 0). */
  startSeconds: number;
  /**
   * Whether the container has an index to seek by. Without one (MPEG-TS, MPEG-PS, raw streams) a seek
   * lands on whatever frame is there, often not a key frame, and ffmpeg decodes nothing until the next.
   */
  seekIndex: boolean;
};

/** What a preset assumes of an input it has not seen (the expansion `GET /v1/jobs/{id}` shows before the job runs). */
export const TYPICAL_INPUT: MediaFacts = {
  video: {
    codec: "h264",
    width: 1920,
    height: 1080,
    rotation: 0,
    pixFmt: "yuv420p",
    interlaced: false,
    frameRate: 30,
    fullRange: false,
    pixelAspect: 1,
    hdr: null,
    dolbyVisionRecord: false,
  },
  audio: { codec: "aac", sampleRate: 48000, channels: 2 },
  subtitles: [{ codec: "subrip", kind: "text", language: null, width: null, height: null }],
  largestVideoPixels: 1920 * 1080,
  durationSeconds: null,
  startSeconds: 0,
  seekIndex: true,
};

/**
 * The typical input for a job's parameters: it has the subtitle track a `track` parameter names (a text
 * track), so a plan for an input not yet seen never refuses what the real one may well have.
 */
export function typicalInputFor(params: Record<string, unknown>): MediaFacts {
  const track = typeof params.track === "number" && Number.isInteger(params.track) ? params.track : 0;
  return {
    ...TYPICAL_INPUT,
    subtitles: Array.from({ length: Math.min(track, 99) + 1 }, () => TYPICAL_INPUT.subtitles[0]),
  };
}

/** Demuxers (ffprobe's format_name) that seek without an index. */
const NO_SEEK_INDEX = new Set(["mpegts", "mpeg", "mpegvideo", "h264", "hevc", "m4v", "mpeg1video", "mpeg2video"]);

type ProbeStream = Record<string, unknown>;
type Probe = { format?: Record<string, unknown>; streams?: ProbeStream[] } | null;

const num = (v: unknown): number | null => {
  const n = typeof v === "number" ? v : Number(v);
  return v === undefined || v === null || v === "N/A" || v === "" || !Number.isFinite(n) ? null : n;
};

function rate(v: unknown): number | null {
  const m = /^(\d+)\/(\d+)$/.exec(String(v ?? ""));
  const r = m && Number(m[2]) > 0 ? Number(m[1]) / Number(m[2]) : 0;
  // ffprobe says 90000/1 or 1000/1 for streams it cannot time; no real video runs that fast.
  return r > 0 && r <= 240 ? Math.round(r * 1000) / 1000 : null;
}

function aspect(v: unknown): number {
  const m = /^(\d+):(\d+)$/.exec(String(v ?? ""));
  const r = m && Number(m[1]) > 0 && Number(m[2]) > 0 ? Number(m[1]) / Number(m[2]) : 1;
  return r >= 0.1 && r <= 10 ? r : 1;
}

function rotationOf(s: ProbeStream): number {
  const sides = Array.isArray(s.side_data_list) ? (s.side_data_list as Record<string, unknown>[]) : [];
  const fromMatrix = sides.map((d) => num(d.rotation)).find((r) => r !== null);
  const fromTag = num((s.tags as Record<string, unknown> | undefined)?.rotate);
  const r = Math.round((fromMatrix ?? fromTag ?? 0) / 90) * 90;
  return ((r % 360) + 360) % 360;
}

const isCoverArt = (s: ProbeStream) => (s.disposition as Record<string, unknown> | undefined)?.attached_pic === 1;

/** The facts of one input from ffprobe's `-show_format -show_streams` JSON; null when it is not media ffprobe can read. */
export function mediaFactsOf(probe: Probe): MediaFacts | null {
  if (!probe?.format) return null;
  const streams = probe.streams ?? [];
  const v = streams.find((s) => s.codec_type === "video" && !isCoverArt(s) && num(s.width) && num(s.height));
  const a = streams.find((s) => s.codec_type === "audio" && num(s.sample_rate) && num(s.channels));
  let video: VideoFacts | null = null;
  if (v) {
    const rotation = rotationOf(v);
    const [w, h] = [num(v.width)!, num(v.height)!];
    const pixFmt = String(v.pix_fmt ?? "unknown");
    video = {
      codec: String(v.codec_name ?? "unknown"),
      width: rotation % 180 ? h : w,
      height: rotation % 180 ? w : h,
      rotation,
      pixFmt,
      interlaced: ["tt", "bb", "tb", "bt"].includes(String(v.field_order)),
      frameRate: rate(v.avg_frame_rate) ?? rate(v.r_frame_rate),
      fullRange: v.color_range === "pc" || pixFmt.startsWith("yuvj"),
      pixelAspect: rotation % 180 ? 1 / aspect(v.sample_aspect_ratio) : aspect(v.sample_aspect_ratio),
      hdr: hdrFactsOf(v),
      dolbyVisionRecord: dolbyVisionOf(v) !== null,
    };
  }
  const audio = a
    ? { codec: String(a.codec_name ?? "unknown"), sampleRate: num(a.sample_rate)!, channels: num(a.channels)! }
    : null;
  const formats = String(probe.format.format_name ?? "").split(",");
  return {
    video,
    audio,
    subtitles: streams.filter((s) => s.codec_type === "subtitle").map(subtitleFactsOf),
    largestVideoPixels: Math.max(
      0,
      ...streams.filter((s) => s.codec_type === "video").map((s) => (num(s.width) ?? 0) * (num(s.height) ?? 0)),
    ),
    durationSeconds: num(probe.format.duration),
    startSeconds: num(probe.format.start_time) ?? 0,
    seekIndex: !formats.some((f) => NO_SEEK_INDEX.has(f)),
  };
}
