import type { RunnerProgress } from "../../runner/runner-protocol.ts";
import type { JobTask } from "./split-task.ts";

/** The join's share of a split job's progress (it copies, so it is quick next to the encodes). */
const JOIN_PERCENT = 10;
/** A segment under way counts at most this share of itself until it ends (its frame count is an estimate). */
const RUNNING_SEGMENT_MAX_SHARE = 0.99;

/**
 * A split job's progress: the video seconds its segments have encoded over the whole, up to 90 %, then
 * the join. A finished segment counts whole; one under way counts the frames its runner reported
 * (`framesByTask`) over those it is expected to write (its length at the input's frame rate): ffmpeg
 * reports no output time for a segment, whose timestamps are the input's (-copyts). A job run whole
 * reports its run's own progress when it has one.
 */
export function splitProgress(
  tasks: JobTask[],
  wholeProgress: RunnerProgress | null = null,
  framesByTask: ReadonlyMap<string, number> = new Map(),
): RunnerProgress {
  const whole = tasks.find((t) => t.params.kind === "whole");
  if (whole)
    return (
      wholeProgress ?? {
        percent: whole.status === "completed" ? 100 : null,
        outTimeSeconds: null,
        speed: null,
        frames: null,
      }
    );
  const segments = tasks.flatMap((t) => (t.params.kind === "segment" ? [{ t, p: t.params }] : []));
  // The last segment runs to the end: its length is taken as its neighbours'.
  const usual = segments.length > 1 ? segments[1].p.segment.startSeconds - segments[0].p.segment.startSeconds : 1;
  const length = ({ segment }: (typeof segments)[number]["p"]) =>
    (segment.endSeconds ?? segment.startSeconds + usual) - segment.startSeconds;
  const share = ({ t, p }: (typeof segments)[number]): number => {
    if (t.status === "completed") return 1;
    const frames = framesByTask.get(t.name);
    if (t.status !== "running" || frames === undefined || !p.expectedFrames) return 0;
    return Math.min(RUNNING_SEGMENT_MAX_SHARE, frames / p.expectedFrames);
  };
  const total = segments.reduce((sum, s) => sum + length(s.p), 0) || 1;
  const encoded = segments.reduce((sum, s) => sum + length(s.p) * share(s), 0);
  const joined = tasks.some((t) => t.params.kind === "join" && t.status === "completed");
  const percent = joined ? 100 : Math.round((encoded / total) * (100 - JOIN_PERCENT) * 10) / 10;
  return { percent, outTimeSeconds: null, speed: null, frames: null };
}
