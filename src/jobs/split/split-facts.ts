/**
 * What a split encode's plan needs to know of its input, read from the runner's ffprobe of it (the
 * same `-show_format -show_streams` a dry run's probe makes): where the video starts and how long it
 * is, its frame rate, whether there is audio, and the container (MPEG-TS cannot be cut by seeking).
 */
export type SplitFacts = {
  /** ffprobe's format name (`mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`, `mpegts`). */
  format: string;
  /** The input's start: ffmpeg's -ss before -i counts from here. */
  formatStartSeconds: number;
  formatDurationSeconds: number | null;
  /** The first video stream that is not a picture (cover art). */
  video: { startSeconds: number; durationSeconds: number | null; frameRate: string } | null;
  hasAudio: boolean;
  /** Text subtitle streams (SubRip, ASS, WebVTT, 3GPP text): what one run into Matroska keeps by itself. */
  textSubtitleStreams?: number;
  /** How many video streams (not cover art) and audio streams: with several, ffmpeg picks one by its own rules. */
  videoStreams: number;
  audioStreams: number;
  /**
   * Where the video's packets really end, read from the file itself (a seek to the claimed end lands on
   * the last keyframe there is, and its packets are read to the end of the file); absent when not read.
   */
  videoEndSeconds?: number | null;
};

type ProbeJson = {
  format?: Record<string, unknown>;
  streams?: (Record<string, unknown> & { codec_type?: string; disposition?: Record<string, unknown> })[];
};

const seconds = (v: unknown): number | null => {
  const n = Number(v);
  return v === undefined || v === null || v === "N/A" || !Number.isFinite(n) ? null : n;
};

const TEXT_SUBTITLES = new Set(["subrip", "ass", "ssa", "webvtt", "mov_text", "text"]);

export function splitFactsOf(probe: ProbeJson | null): SplitFacts | null {
  if (!probe?.format) return null;
  const streams = probe.streams ?? [];
  const video = streams.find((s) => s.codec_type === "video" && Number(s.disposition?.attached_pic ?? 0) !== 1);
  const formatStart = seconds(probe.format.start_time) ?? 0;
  const rate = String(video?.r_frame_rate ?? "");
  return {
    format: typeof probe.format.format_name === "string" ? probe.format.format_name : "",
    formatStartSeconds: formatStart,
    formatDurationSeconds: seconds(probe.format.duration),
    video: video
      ? {
          startSeconds: seconds(video.start_time) ?? formatStart,
          durationSeconds: seconds(video.duration),
          frameRate: /^[1-9]\d*\/[1-9]\d*$/.test(rate) ? rate : "",
        }
      : null,
    hasAudio: streams.some((s) => s.codec_type === "audio"),
    textSubtitleStreams: streams.filter((s) => s.codec_type === "subtitle" && TEXT_SUBTITLES.has(String(s.codec_name)))
      .length,
    videoStreams: streams.filter((s) => s.codec_type === "video" && Number(s.disposition?.attached_pic ?? 0) !== 1)
      .length,
    audioStreams: streams.filter((s) => s.codec_type === "audio").length,
  };
}

/**
 * How long the video runs: its own duration, else the container's less where the video starts in it;
 * no longer than its packets were measured to run (a header may claim any length).
 */
export function videoLengthSeconds(facts: SplitFacts): number | null {
  const claimed = claimedVideoLengthSeconds(facts);
  if (claimed === null || facts.videoEndSeconds == null) return claimed;
  return Math.min(claimed, facts.videoEndSeconds - facts.video!.startSeconds);
}

/** What the headers say: the video's own duration, else the container's less where the video starts in it. */
export function claimedVideoLengthSeconds(facts: SplitFacts): number | null {
  if (!facts.video) return null;
  if (facts.video.durationSeconds !== null && facts.video.durationSeconds > 0) return facts.video.durationSeconds;
  if (facts.formatDurationSeconds === null) return null;
  return facts.formatDurationSeconds - (facts.video.startSeconds - facts.formatStartSeconds);
}
