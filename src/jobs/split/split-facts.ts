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
  /**
   * The first video stream that is not a picture (cover art). `frameRate`: ffprobe's r_frame_rate (the rate its timestamps are on); `averageFrameRate`: frames over
   * duration (avg_frame_rate), "" when unknown (absent in facts read before it was kept).
   */
  video: {
    startSeconds: number;
    durationSeconds: number | null;
    frameRate: string;
    averageFrameRate?: string;
  } | null;
  hasAudio: boolean;
  /** Where the first audio stream starts (null when it does not say; absent in facts read before it was kept). */
  audioStartSeconds?: number | null;
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

const RATE = /^[1-9]\d*\/[1-9]\d*$/;

const TEXT_SUBTITLES = new Set(["subrip", "ass", "ssa", "webvtt", "mov_text", "text"]);

export function splitFactsOf(probe: ProbeJson | null): SplitFacts | null {
  if (!probe?.format) return null;
  const streams = probe.streams ?? [];
  const video = streams.find((s) => s.codec_type === "video" && Number(s.disposition?.attached_pic ?? 0) !== 1);
  const formatStart = seconds(probe.format.start_time) ?? 0;
  const rate = String(video?.r_frame_rate ?? "");
  const average = String(video?.avg_frame_rate ?? "");
  return {
    format: typeof probe.format.format_name === "string" ? probe.format.format_name : "",
    formatStartSeconds: formatStart,
    formatDurationSeconds: seconds(probe.format.duration),
    video: video
      ? {
          startSeconds: seconds(video.start_time) ?? formatStart,
          durationSeconds: seconds(video.duration),
          frameRate: RATE.test(rate) ? rate : "",
          averageFrameRate: RATE.test(average) ? average : "",
        }
      : null,
    hasAudio: streams.some((s) => s.codec_type === "audio"),
    audioStartSeconds: seconds(streams.find((s) => s.codec_type === "audio")?.start_time),
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

/** How far the average rate may be from the timestamps' rate for a video to count as constant-rate: 0.1 %. */
const VARIABLE_RATE_TOLERANCE = 0.001;

/**
 * Whether the video's frames come at a varying rate: its average (frames over duration) away from the rate
 * its timestamps are on, as a phone's or a screen recording's. Unknown counts as constant (the plan's
 * other rules need the rate itself).
 */
export function hasVariableFrameRate(video: NonNullable<SplitFacts["video"]>): boolean {
  const value = (rate: string | undefined) => {
    const [num, den] = (rate ?? "").split("/").map(Number);
    return num > 0 && den > 0 ? num / den : null;
  };
  const rate = value(video.frameRate);
  const average = value(video.averageFrameRate);
  return rate !== null && average !== null && Math.abs(average / rate - 1) > VARIABLE_RATE_TOLERANCE;
}
