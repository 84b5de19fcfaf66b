import type { Services } from "../../services.ts";
import type { RunnerOutcome } from "../../runner/runner-protocol.ts";
import { WORK_PREFIX } from "../../storage/presigner.ts";
import { deletePrefix } from "../../storage/delete-objects.ts";
import { endJobFromRunner } from "../lifecycle/end-job.ts";
import { billableSeconds, type JobEnding, canceledEnding } from "../lifecycle/job-endings.ts";
import { endJob } from "../lifecycle/end-job.ts";
import { discardUnrecordedOutputs } from "../lifecycle/discard-outputs.ts";
import { endTaskStatement, listTasks, tasksRuntimeMs } from "./task-store.ts";
import type { JobRow } from "../store/job-row.ts";
import type { JobTask } from "./split-task.ts";

/*
 * How a split job ends. Billed for the seconds its tasks' binaries ran, added up (a lost attempt is
 * not billed, as for any job); its work files are deleted whatever the ending.
 */

/** The last task (the join, or the whole run) completed: the job completes with its output. */
export async function completeSplitJob(
  s: Services,
  job: JobRow,
  tasks: JobTask[],
  last: JobTask,
  outcome: RunnerOutcome,
  alongside: D1PreparedStatement[] = [],
): Promise<void> {
  await endJobFromRunner(
    s,
    job,
    {
      ...outcome,
      runtimeMs: tasksRuntimeMs(tasks),
      timings: splitTimings(job, tasks, last, outcome),
      inputReads: last.params.kind === "whole" ? outcome.inputReads : inputReadsOf(tasks),
      // A preset's command as planned for the input, which the tasks ran (a whole run reports its own).
      ...(last.params.kind !== "whole" && last.params.plannedArgs ? { plannedArgs: last.params.plannedArgs } : {}),
    },
    alongside,
  );
  await releaseTasks(s, job.id, tasks);
}

/** What a task stopped because its job ended says, however its end was seen (this stop, or a tick that read its runner's report first). */
export const TASK_STOPPED_MESSAGE = "stopped: the job ended";

/**
 * The job fails (a task's command failed, a task was lost too often, the deadline passed) or is
 * canceled: the tasks still running are stopped first, so their run time is billed and nothing keeps
 * writing, then the job ends with `finish` and the total.
 */
export async function stopSplitJob(
  s: Services,
  job: JobRow,
  tasks: JobTask[],
  finish: (runtimeSeconds: number) => JobEnding,
  alongside: D1PreparedStatement[] = [],
): Promise<boolean> {
  const now = s.now().toISOString();
  const stopped = await Promise.all(
    tasks
      .filter((t) => t.status === "running")
      .map(async (t) => {
        const report = await s.runner.cancel(t.runnerId!).catch(() => null);
        const runtimeMs = report?.outcome?.runtimeMs ?? 0;
        return {
          runtimeMs,
          statement: endTaskStatement(s.db, job.id, t.name, t.runnerId!, {
            status: "failed",
            runtimeMs,
            errorMessage: TASK_STOPPED_MESSAGE,
            now,
          }),
        };
      }),
  );
  const runtimeMs = tasksRuntimeMs(tasks) + stopped.reduce((sum, t) => sum + t.runtimeMs, 0);
  // The tasks' ends and the job's are one batch: no tick ever sees a stopped task in a job still running.
  const moved = await endJob(s, job.id, finish(billableSeconds(runtimeMs)), {
    alongside: [...stopped.map((t) => t.statement), ...alongside],
  });
  await releaseTasks(s, job.id, tasks);
  await discardUnrecordedOutputs(s, job.id);
  return moved;
}

/** A canceled split job: its running tasks stopped, billed for what ran. */
export async function cancelSplitJob(s: Services, job: JobRow): Promise<boolean> {
  return stopSplitJob(s, job, await listTasks(s.db, job.id), (seconds) =>
    canceledEnding(seconds, s.config.creditsPerSecond),
  );
}

/** Every task's runner let go, and the work files deleted (also run by a terminal tick, in case this did not finish). */
export async function releaseTasks(s: Services, jobId: string, tasks: JobTask[]): Promise<void> {
  await Promise.all(tasks.filter((t) => t.runnerId).map((t) => s.runner.release(t.runnerId!)));
  await deleteWorkFiles(s, jobId);
}

export async function deleteWorkFiles(s: Services, jobId: string): Promise<void> {
  await deletePrefix(s.bucket, `${WORK_PREFIX}${jobId}/`);
}

/**
 * A split job's phases, end to end like any job's: fetch is its plan (the probe of the input), run the
 * segments and audio side by side, store the join (it writes the job's output); they meet, so they add
 * up to the job's wall time. A job run whole has its run's own phases.
 */
function splitTimings(job: JobRow, tasks: JobTask[], last: JobTask, outcome: RunnerOutcome): RunnerOutcome["timings"] {
  if (last.params.kind === "whole") return outcome.timings;
  const started = Date.parse(job.started_at ?? outcome.finishedAt);
  const firstTask = Math.min(
    ...tasks.filter((t) => t !== last && t.startedAt).map((t) => Date.parse(t.startedAt!)),
    Date.parse(last.startedAt ?? outcome.finishedAt),
  );
  const joinStarted = Date.parse(last.startedAt ?? outcome.finishedAt);
  const joinEnded = Date.parse(outcome.finishedAt);
  return {
    fetchMs: Math.max(0, firstTask - started),
    runMs: Math.max(0, joinStarted - firstTask),
    storeMs: Math.max(0, joinEnded - joinStarted),
  };
}

/** The job's input as its segments and audio read it, added up (each reads its own part). */
function inputReadsOf(tasks: JobTask[]): RunnerOutcome["inputReads"] {
  const total: NonNullable<RunnerOutcome["inputReads"]> = {};
  for (const t of tasks) {
    if (t.params.kind !== "segment" && t.params.kind !== "audio") continue;
    for (const [name, r] of Object.entries(t.result?.inputReads ?? {})) {
      total[name] ??= { bytesRead: 0, originBytes: 0, copied: false };
      const sum = total[name];
      sum.bytesRead += r.bytesRead;
      sum.originBytes += r.originBytes;
      sum.copied ||= r.copied;
    }
  }
  return total;
}
