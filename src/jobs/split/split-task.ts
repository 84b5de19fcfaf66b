import type { RunnerOutcome } from "../../runner/runner-protocol.ts";
import type { SplitSegment } from "./split-plan.ts";
import type { SegmentSeams } from "./seam-quality.ts";

/*
 * A split job's task: what the plan makes of it (split-tasks.ts) and what its row in D1 holds
 * (task-store.ts). pending → running (handed to a runner, under a runner id of its own) → completed |
 * failed; a lost attempt goes back to pending.
 */

/** `plannedArgs`: a preset job's command as planned for this input (a raw job's is its own). */
export type SplitTaskParams =
  | {
      kind: "segment";
      segment: SplitSegment;
      formatStartSeconds: number;
      constantRate: string | null;
      /** Planned since the join keeps every stream's start: the segment's timestamps are exact (split-plan.ts). */
      exactTimestamps?: boolean;
      plannedArgs?: string[];
      /** About how many frames it writes (its length at the input's frame rate), for progress; null when the rate is unknown. */
      expectedFrames?: number | null;
      /** On a constant grid: the frame count its work file is checked for (split-tasks.ts, frameCountOf). */
      frameCount?: { min?: number; max: number };
    }
  | {
      kind: "audio" /** It carries the subtitles one run keeps (split-plan.ts, audioArgs). */;
      subtitles?: boolean;
      plannedArgs?: string[];
    }
  | {
      kind: "join";
      segments: number;
      audio: boolean;
      videoDelaySeconds: number;
      /** Planned since the join keeps every stream's start (absent in older plans: joined as before). */
      formatStartSeconds?: number;
      plannedArgs?: string[];
      /** Why the segments are longer than the job asked (the plan's cap on their count), shown in the tasks list. */
      note?: string;
      /** Where the input's audio starts against its video, in ms (absent without audio, and in older plans): the join's avSync. */
      audioOffsetMs?: number;
      /** One frame at the input's rate, in ms: how far the join's streams may start from the input's offset. */
      frameMs?: number;
    }
  | { kind: "whole"; reason: string };

export type PlannedTask = { name: string; needs: string[]; params: SplitTaskParams };

export type TaskStatus = "pending" | "running" | "completed" | "failed";
/** A completed attempt: what it wrote, where its time went, what it read of the job's input. */
export type TaskResult = {
  outputs: { name: string; size: number }[];
  timings: RunnerOutcome["timings"];
  finishedAt: string;
  inputReads?: RunnerOutcome["inputReads"];
  /** A segment's edges against what it was fed (seam-quality.ts): null when they could not be compared. */
  seams?: SegmentSeams | null;
};
export type JobTask = {
  name: string;
  needs: string[];
  params: SplitTaskParams;
  status: TaskStatus;
  runnerId: string | null;
  attempts: number;
  runtimeMs: number;
  result: TaskResult | null;
  errorMessage: string | null;
  startedAt: string | null;
  finishedAt: string | null;
};
