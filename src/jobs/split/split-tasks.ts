import type { RunnerOutcome } from "../../runner/runner-protocol.ts";
import type { SplitShape } from "./split-eligibility.ts";
import type { JobTask, PlannedTask, SplitTaskParams } from "./split-task.ts";
import { hasVariableFrameRate, videoLengthSeconds, type SplitFacts } from "./split-facts.ts";
import { expectedFrames, frameCountOf } from "./segment-frames.ts";
import { constantRateOf, planSegments } from "./split-plan.ts";
import { sceneWindowSeconds, type CutScan } from "./scene-cuts.ts";
import { cutFromScan, placeCuts } from "./place-cuts.ts";

/*
 * A split job's work as runner tasks, planned once from a probe of its input: the segments
 * (each on a container of its own) and the audio, side by side, then the join. An input that cannot be
 * cut safely, or is too short to gain from it, is one task that runs the job's own command ("whole"):
 * the client asked for speed, and gets the same file either way.
 */

export const JOIN_TASK = "join";
export const AUDIO_TASK = "audio";
export const WHOLE_TASK = "whole";
export const segmentTaskName = (index: number) => `segment-${index}`;

/**
 * At most this many segments: past it the segments grow longer instead. It bounds what one input's
 * claims can make the service do (rows and queries at the plan, runners started, the join's one
 * `concat:` argument, which Linux caps at 128 KiB), whatever length a file says it has.
 */
export const MAX_SPLIT_SEGMENTS = 256;
/**
 * A video that claims to run longer than this (a week) is not planned from the claim: it runs whole, so
 * ffmpeg meets the file as it is. No real input is near it, and past it the times lose their precision.
 */
export const MAX_SPLIT_MEDIA_SECONDS = 7 * 24 * 3600;

export function planSplitTasks(
  facts: SplitFacts,
  shape: SplitShape,
  parallel: { segmentSeconds: number },
  plannedArgs?: string[],
  /** What the plan's scan found around each cut (scene-cuts.ts), when it ran. */
  cutScans?: (CutScan | null)[],
): PlannedTask[] {
  const planned = plannedArgs ? { plannedArgs } : {};
  const whole = (reason: string): PlannedTask[] => [{ name: WHOLE_TASK, needs: [], params: { kind: "whole", reason } }];
  const length = videoLengthSeconds(facts);
  if (!facts.video) return whole("the input has no video stream");
  // ffmpeg 5.1's seek in MPEG-TS can land on a keyframe after the one asked for (split-plan.ts).
  if (/\bmpegts\b/.test(facts.format)) return whole("MPEG-TS inputs cannot be cut exactly by seeking");
  if (shape.audioMapped && !facts.hasAudio) return whole("the command maps audio the input does not have");
  // A single run picks among several streams by its own rules (the largest picture, the most channels):
  // the split takes the first of each, so it cuts only inputs where that is the same choice.
  if (facts.videoStreams > 1 || (shape.encoding.audioArgs !== null && facts.audioStreams > 1))
    return whole("the input has several video or audio streams");
  const constantRate = constantRateOf(shape.encoding.muxer, facts.video.frameRate);
  if (shape.encoding.muxer !== "matroska" && !facts.video.frameRate) return whole("the input's frame rate is unknown");
  // One run makes a varying rate constant by its own rule (a frame shown early, held or dropped by how far
  // it is from its slot, as the frames before left it); segments fill their slots by nearness instead, and
  // showed another frame than one run in 13 % of the slots of a variable-rate phone-like input.
  if (shape.encoding.muxer !== "matroska" && hasVariableFrameRate(facts.video))
    return whole(
      `the input's frame rate varies (${facts.video.averageFrameRate} on average, timestamps at ${facts.video.frameRate}): one run makes it constant frame by frame, as segments cannot`,
    );
  if (
    length !== null &&
    (length > MAX_SPLIT_MEDIA_SECONDS ||
      Math.abs(facts.video.startSeconds) > MAX_SPLIT_MEDIA_SECONDS ||
      Math.abs(facts.formatStartSeconds) > MAX_SPLIT_MEDIA_SECONDS)
  ) {
    return whole(
      `the input claims a video of ${length.toExponential(3)} s from ${facts.video.startSeconds.toExponential(3)} s: a split plans for at most ${MAX_SPLIT_MEDIA_SECONDS} s`,
    );
  }
  if (length === null || length < 2 * parallel.segmentSeconds)
    return whole(
      `the video (${length === null ? "of unknown length" : `${length.toFixed(1)} s`}) is shorter than two segments of ${parallel.segmentSeconds} s`,
    );
  const { segmentSeconds, note } = cappedSegmentSeconds(length, parallel.segmentSeconds);
  const evenly = planSegments({ startSeconds: facts.video.startSeconds, lengthSeconds: length }, segmentSeconds);
  const window = sceneWindowSeconds(segmentSeconds);
  const segments = cutScans
    ? placeCuts(
        evenly,
        evenly.slice(1).map((s, k) => cutFromScan(cutScans[k] ?? null, s.startSeconds, window, constantRate)),
        window,
      )
    : evenly;
  // The subtitles one run keeps by itself: a Matroska output's, of a command that maps no stream.
  const subtitles =
    shape.encoding.defaultStreams && shape.encoding.muxer === "matroska" && (facts.textSubtitleStreams ?? 0) > 0;
  const audio = (shape.encoding.audioArgs !== null && facts.hasAudio) || subtitles;
  // The audio first: it is short, and the join waits for it as for the last segment.
  return [
    ...(audio
      ? [
          {
            name: AUDIO_TASK,
            needs: [],
            params: { kind: "audio", ...(subtitles ? { subtitles } : {}), ...planned },
          } satisfies PlannedTask,
        ]
      : []),
    ...segments.map((segment): PlannedTask => {
      const frames = expectedFrames(segment, facts.video!, length);
      const last = segment.index === segments.length - 1;
      const count = constantRate && frames !== null ? frameCountOf(frames, last, facts) : null;
      return {
        name: segmentTaskName(segment.index),
        needs: [],
        params: {
          kind: "segment",
          segment,
          formatStartSeconds: facts.formatStartSeconds,
          constantRate,
          exactTimestamps: true,
          expectedFrames: frames,
          ...(count ? { frameCount: count } : {}),
          ...planned,
        },
      };
    }),
    {
      name: JOIN_TASK,
      needs: [...segments.map((s) => segmentTaskName(s.index)), ...(audio ? [AUDIO_TASK] : [])],
      params: {
        kind: "join",
        segments: segments.length,
        audio,
        videoDelaySeconds: Math.max(0, facts.video.startSeconds - facts.formatStartSeconds),
        ...audioOffset(facts, shape.encoding.audioArgs !== null),
        formatStartSeconds: facts.formatStartSeconds,
        ...planned,
        ...(note ? { note } : {}),
      },
    },
  ];
}

/**
 * The segments' length: the job's, unless that makes more than MAX_SPLIT_SEGMENTS; then the length that
 * makes that many (to the millisecond, rounded up), and a note saying so.
 */
export function cappedSegmentSeconds(
  lengthSeconds: number,
  askedSeconds: number,
): { segmentSeconds: number; note: string | null } {
  if (Math.floor(lengthSeconds / askedSeconds) <= MAX_SPLIT_SEGMENTS)
    return { segmentSeconds: askedSeconds, note: null };
  const segmentSeconds = Math.ceil((lengthSeconds / MAX_SPLIT_SEGMENTS) * 1000) / 1000;
  return {
    segmentSeconds,
    note: `the video's ${lengthSeconds.toFixed(1)} s in segments of ${askedSeconds} s would be ${Math.floor(lengthSeconds / askedSeconds)} segments; a split has at most ${MAX_SPLIT_SEGMENTS}, so its segments are ${segmentSeconds} s`,
  };
}

/** Describes a task for a job's error message: `segment 3 (60.0-80.0 s)`. */
export function describeTask(name: string, params: SplitTaskParams): string {
  if (params.kind === "segment") {
    const { startSeconds, endSeconds } = params.segment;
    return `segment ${params.segment.index} (${startSeconds.toFixed(1)}-${endSeconds === null ? "end" : `${endSeconds.toFixed(1)} s`})`;
  }
  return params.kind === "audio" ? "the audio" : params.kind === "join" ? "the join" : name;
}

/**
 * A segment whose command encoded nothing: the input has no frame in its span (it ends before the span,
 * whatever its header claimed, or its video has a gap there). One run of the job would have no frame
 * there either, so the segment is done and the join leaves it out.
 */
export function isEmptySegment(
  task: Pick<JobTask, "params">,
  outcome: Pick<RunnerOutcome, "status" | "errorCode">,
): boolean {
  return task.params.kind === "segment" && outcome.status === "failed" && outcome.errorCode === "OUTPUT_EMPTY";
}

/** The segments the join reads, in order: those completed with a work file (an empty one has none). */
export function segmentsToJoin(tasks: JobTask[]): JobTask[] {
  return tasks.filter(
    (t) => t.params.kind === "segment" && t.status === "completed" && (t.result?.outputs.length ?? 0) > 0,
  );
}

/**
 * Where the input's audio starts against its video, and a frame's length: the join checks its output keeps
 * that offset within a frame (one run may fill or shift its first frame). Nothing when the join has no
 * audio, or the probe did not say where the audio starts or the frame rate.
 */
function audioOffset(facts: SplitFacts, encodesAudio: boolean): { audioOffsetMs?: number; frameMs?: number } {
  const [num, den] = (facts.video?.frameRate ?? "").split("/").map(Number);
  if (!encodesAudio || !facts.hasAudio || facts.audioStartSeconds == null || !num || !den) return {};
  const ms = (seconds: number) => Math.round(seconds * 1e6) / 1e3;
  return { audioOffsetMs: ms(facts.audioStartSeconds - facts.video!.startSeconds), frameMs: ms(den / num) };
}
