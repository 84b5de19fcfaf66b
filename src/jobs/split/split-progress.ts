import type { RunnerProgress } from "../../runner/runner-protocol.ts";
import type { JobTask } from "./task-store.ts";

/** The join's share of a split job's progress (it copies, so it is quick next to the encodes). */
const JOIN_PERCENT = 10;

/**
 * A split job's progress: the video seconds of its completed segments over the whole, up to 90 %, then
 * the join. Counted from finished segments only: ffmpeg 5.1 reports no output time for a segment
 * (its timestamps are the input's, -copyts), so a segment under way counts when it ends. A job run
 * whole reports its run's own progress when it has one.
 */
export function splitProgress(tasks: JobTask[], wholeProgress: RunnerProgress | null = null): RunnerProgress {
  const whole = tasks.find((t) => t.params.kind === "whole");
  if (whole) return wholeProgress ?? { percent: whole.status === "completed" ? 100 : null, outTimeSeconds: null, speed: null };
  const segments = tasks.flatMap((t) => (t.params.kind === "segment" ? [{ t, p: t.params.segment }] : []));
  // The last segment runs to the end: its length is taken as its neighbours'.
  const usual = segments.length > 1 ? segments[1].p.startSeconds - segments[0].p.startSeconds : 1;
  const length = (p: (typeof segments)[number]["p"]) => (p.endSeconds ?? p.startSeconds + usual) - p.startSeconds;
  const total = segments.reduce((sum, { p }) => sum + length(p), 0) || 1;
  const encoded = segments.filter(({ t }) => t.status === "completed").reduce((sum, { p }) => sum + length(p), 0);
  const joined = tasks.some((t) => t.params.kind === "join" && t.status === "completed");
  const percent = joined ? 100 : Math.round(((encoded / total) * (100 - JOIN_PERCENT)) * 10) / 10;
  return { percent, outTimeSeconds: null, speed: null };
}
