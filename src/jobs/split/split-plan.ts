import { seamEdgeFilters, type SeamWindows } from "./seam-quality.ts";

/**
 * A split encode's commands: the input's video cut into segments encoded apart, the audio
 * encoded once over the whole input, then the segments joined without re-encoding and muxed with it.
 *
 * Each segment keeps the input's own timestamps (`-copyts`, the encoder on the input's time base,
 * frames passed through as they are): its frames are exactly those with a timestamp in
 * [start, end), cut by the `trim` filter on the frames themselves (the seek before the input only
 * saves decoding and lands on a keyframe at or before the start), and every segment is shifted by the
 * same SEGMENT_TS_OFFSET_SECONDS so none needs the muxer's own shift for the encoder's B-frame delay.
 * Segments are MPEG-TS, so they join byte for byte in order (the concat protocol) with monotonic
 * timestamps and no gap or repeat at a join. Measured on ffmpeg 5.1: the joined video's frames and
 * timestamps equal a single encode's for constant (30000/1001) and variable frame rates, a non-zero
 * start and one keyframe in 20 s (test/runner/split-plan-ffmpeg.test.ts). Inputs must seek by an index
 * (MP4/MOV, Matroska/WebM): ffmpeg's seek in MPEG-TS can land on a keyframe after the target.
 */
export type SplitSegment = {
  index: number;
  startSeconds: number;
  endSeconds: number | null;
  /** Where the cut before it was planned, when its scan moved it (to a change of scene or a keyframe: scene-cuts.ts). */
  cutFromSeconds?: number;
  /** The keyframe it starts on, when its cut was put just before one: its seek lands there, no frame decoded in vain. */
  keyframeSeconds?: number;
};

/** Added to every segment's timestamps; the join's remux takes it away again. */
export const SEGMENT_TS_OFFSET_SECONDS = 10;

/**
 * A segment's seek goes this far before its start. The seek lands on a keyframe by its decode time, and
 * an open-GOP keyframe (HEVC's CRA, an MP4 sync sample) decoded before its presentation time has leading
 * frames shown before it that need the GOP before: landing on one whose decode time is at most the start
 * and whose presentation time is after it, those frames of the segment were lost (a frame held at the
 * join). From half a second earlier, the seek lands at or before the GOP they need (a reorder delay of
 * 16 frames at 30 fps); a segment then decodes at most one GOP more, only when a keyframe lies within it.
 */
export const SEGMENT_SEEK_MARGIN_SECONDS = 0.5;

/**
 * Where a segment's seek goes: a millisecond past the keyframe it starts on (the seek lands on the last
 * keyframe at or before it: that one), else SEGMENT_SEEK_MARGIN_SECONDS before its start.
 */
export function seekSeconds(segment: SplitSegment): number {
  return segment.keyframeSeconds !== undefined
    ? segment.keyframeSeconds + 0.001
    : segment.startSeconds - SEGMENT_SEEK_MARGIN_SECONDS;
}

/**
 * Segments of `segmentSeconds` from the video's first timestamp; the last runs to the end and is
 * between one and two segments long, so no segment is empty or a sliver.
 */
export function planSegments(
  video: { startSeconds: number; lengthSeconds: number },
  segmentSeconds: number,
): SplitSegment[] {
  const count = Math.max(1, Math.floor(video.lengthSeconds / segmentSeconds));
  return Array.from({ length: count }, (_, index) => ({
    index,
    startSeconds: video.startSeconds + index * segmentSeconds,
    endSeconds: index === count - 1 ? null : video.startSeconds + (index + 1) * segmentSeconds,
  }));
}

/** What the job's own command asks of the video and audio (its eligibility check derives it). */
export type SplitEncoding = {
  /** The job's video filter chain (frame by frame), or null. */
  videoFilters: string | null;
  /** The video encoder and its options, as the job gave them (`-c:v libx264 -preset medium -crf 20`). */
  videoArgs: string[];
  /** The audio encoder and its options, or null when the job has no audio (`-an`). */
  audioArgs: string[] | null;
  /** Options of the final file (`-movflags +faststart`). */
  outputArgs: string[];
  /** The final file's muxer: the audio is encoded into one too, so its default encoder is the single run's. */
  muxer: "mp4" | "mov" | "matroska";
  /**
   * The command maps no stream itself: one run takes ffmpeg's own choice of audio and subtitles (a
   * Matroska output keeps the input's first text subtitles), and so does the split's audio task.
   */
  defaultStreams: boolean;
};

/**
 * The frame rate a single run of the job would make constant: ffmpeg (5.1) writes MP4 and MOV at the
 * input's frame rate, duplicating or dropping frames of a variable-rate input, and Matroska as the
 * frames come. A segment does the same on the same grid before its cut (`fps` ahead of `trim`), so a
 * gap across a join is filled as one run fills it.
 */
export function constantRateOf(muxer: SplitEncoding["muxer"], inputFrameRate: string): string | null {
  return muxer === "matroska" ? null : inputFrameRate;
}

/**
 * One segment's command: `input` the input, `output` a `.ts` work file. `formatStartSeconds` is the
 * input's start (ffmpeg seeks relative to it); `constantRate` from constantRateOf. `exactTimestamps`:
 * the MPEG-TS muxer adds no delay of its own (by default it shifts everything 1.4 s), so a segment's
 * timestamps are the input's plus SEGMENT_TS_OFFSET_SECONDS exactly and the join can put them back
 * (a plan made before this was kept says nothing, and its segments and join stay as they were).
 */
export function segmentArgs(
  segment: SplitSegment,
  encoding: SplitEncoding,
  io: {
    input: string;
    output: string;
    formatStartSeconds: number;
    constantRate: string | null;
    exactTimestamps?: boolean;
    /** Also write the frames fed to the encoder at the segment's edges, unencoded, to this file (seam-quality.ts). */
    seams?: { output: string; windows: SeamWindows };
  },
): string[] {
  const trim = `trim=start=${seconds(segment.startSeconds)}${segment.endSeconds === null ? "" : `:end=${seconds(segment.endSeconds)}`}`;
  // The first segment's grid starts where the video does, as one run's: frames before the first that decodes
  // (a file cut between keyframes) are filled with it, as one run fills them.
  const grid = segment.index === 0 ? `:start_time=${seconds(segment.startSeconds)}` : "";
  const cut = io.constantRate ? `fps=${io.constantRate}${grid},${trim}` : trim;
  const filters = encoding.videoFilters ? `${cut},${encoding.videoFilters}` : cut;
  // The edge frames split off after every filter, so they are what the encoder got; one decode, one filtering.
  const video = io.seams
    ? [
        "-filter_complex",
        `[0:V:0]${filters},split[enc][edge];[edge]${seamEdgeFilters(io.seams.windows)}[edges]`,
        "-map",
        "[enc]",
      ]
    : // V: the video, never cover art (a picture stored as a video stream).
      ["-map", "0:V:0", "-an", "-sn", "-dn", "-vf", filters];
  const edges = io.seams
    ? // Unencoded (seamEdgeFilters).
      ["-map", "[edges]", "-c:v", "rawvideo", "-fps_mode", "passthrough", "-f", "matroska", io.seams.output]
    : [];
  // The first segment reads from the file's start, as one run: a seek to 0 lands on a keyframe, and a file
  // cut between keyframes (its first frames undecodable) has its first one seconds in.
  const seek = segment.index === 0 ? [] : ["-ss", seconds(Math.max(0, seekSeconds(segment) - io.formatStartSeconds))];
  return [
    "-copyts",
    "-noaccurate_seek",
    ...seek,
    "-i",
    io.input,
    ...video,
    "-enc_time_base:v",
    "-1",
    "-fps_mode",
    "passthrough",
    "-output_ts_offset",
    String(SEGMENT_TS_OFFSET_SECONDS),
    ...encoding.videoArgs,
    ...(io.exactTimestamps ? ["-muxdelay", "0", "-muxpreload", "0"] : []),
    "-f",
    "mpegts",
    io.output,
    ...edges,
  ];
}

/**
 * The audio of the whole input, encoded once (no seams), into a file the join copies from; with the
 * subtitles one run keeps (`defaultStreams`: ffmpeg picks the audio and subtitles as one run picks them,
 * into the same muxer, so a subtitle track the output's container takes is kept and one it does not take
 * is left out, as one run does). Null when the job has neither.
 */
export function audioArgs(
  encoding: SplitEncoding,
  io: { input: string; output: string; subtitles?: boolean },
): string[] | null {
  if (encoding.defaultStreams && (encoding.audioArgs || io.subtitles))
    return ["-i", io.input, "-vn", "-dn", ...(encoding.audioArgs ?? ["-an"]), "-f", encoding.muxer, io.output];
  if (!encoding.audioArgs) return null;
  return ["-i", io.input, "-map", "0:a:0", "-vn", "-sn", "-dn", ...encoding.audioArgs, "-f", encoding.muxer, io.output];
}

/**
 * The join: the segments byte for byte in order (`concat:` of their paths), the audio beside, both
 * copied, every timestamp kept (`-copyts`): the segments' less SEGMENT_TS_OFFSET_SECONDS and the
 * input's start (`formatStartSeconds`), the audio's as its encode wrote them (already counted from the
 * input's start, its own delay included), so each stream starts where it started in the input, as in
 * one run. (Joined as before, each input was counted from its own first timestamp: audio that began
 * 0.3 s after the picture came out 0.25 s early.) A plan made before this (`formatStartSeconds`
 * absent) joins as it did: the video put back by `videoDelaySeconds`, the audio from 0.
 */
export function joinArgs(
  encoding: SplitEncoding,
  io: {
    segments: string[];
    audio: string | null;
    output: string;
    videoDelaySeconds: number;
    formatStartSeconds?: number;
  },
): string[] {
  const audio = io.audio ? ["-i", io.audio] : [];
  const delay =
    io.formatStartSeconds !== undefined
      ? ["-copyts", "-itsoffset", seconds(-(SEGMENT_TS_OFFSET_SECONDS + io.formatStartSeconds))]
      : io.videoDelaySeconds > 0
        ? ["-itsoffset", seconds(io.videoDelaySeconds)]
        : [];
  return [
    ...delay,
    "-i",
    `concat:${io.segments.join("|")}`,
    ...audio,
    "-map",
    "0:v:0",
    // Every stream the audio task wrote: its audio, and the subtitles one run keeps.
    ...(io.audio ? ["-map", "1"] : []),
    "-c",
    "copy",
    ...encoding.outputArgs,
    io.output,
  ];
}

/** Seconds as ffmpeg reads them: microseconds, no exponent. */
function seconds(s: number): string {
  return s.toFixed(6);
}
