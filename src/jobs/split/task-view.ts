import type { z } from "zod";
import type { jobTaskSchema } from "../../api/schemas/jobs.ts";
import type { JobTask } from "./split-task.ts";
import type { SplitSegment } from "./split-plan.ts";
import { joinSeams, type JoinSeam } from "./seam-quality.ts";

/** A job's tasks as GET /v1/jobs/{id}/tasks lists them: the join with its joins' report, from its segments' edges. */
export function tasksView(tasks: JobTask[]): z.infer<typeof jobTaskSchema>[] {
  const segments = tasks
    .flatMap((t) =>
      t.params.kind === "segment" ? [{ segment: t.params.segment, seams: t.result?.seams ?? null }] : [],
    )
    .sort((a, b) => a.segment.index - b.segment.index);
  const joins = joinSeams(segments.map((s) => ({ startSeconds: s.segment.startSeconds, seams: s.seams })));
  return tasks.map((t) => taskView(t, t.params.kind === "join" && joins.length ? joins : null));
}

/** A task as GET /v1/jobs/{id}/tasks shows it; `seams`: a join's report (tasksView). */
export function taskView(t: JobTask, seams: JoinSeam[] | null = null): z.infer<typeof jobTaskSchema> {
  const p = t.params;
  return {
    name: t.name,
    kind: p.kind,
    status: t.status,
    attempts: t.attempts,
    runtimeSeconds: Math.round(t.runtimeMs) / 1000,
    startSeconds: p.kind === "segment" ? p.segment.startSeconds : null,
    endSeconds: p.kind === "segment" ? p.segment.endSeconds : null,
    startedAt: t.startedAt,
    finishedAt: t.finishedAt,
    errorMessage: t.errorMessage,
    reason:
      p.kind === "whole"
        ? p.reason
        : p.kind === "join"
          ? (p.note ?? null)
          : segmentReason(p.kind === "segment" ? p.segment : null),
    seams,
  };
}

/** Why a segment starts where it does, when not where the even plan put it. */
function segmentReason(segment: SplitSegment | null): string | null {
  if (segment?.cutFromSeconds === undefined) return null;
  const where =
    segment.keyframeSeconds === undefined
      ? "a change of scene"
      : `the keyframe at ${segment.keyframeSeconds.toFixed(3)} s`;
  return `its cut moved from ${segment.cutFromSeconds.toFixed(3)} s to ${segment.startSeconds.toFixed(3)} s, before ${where}`;
}
