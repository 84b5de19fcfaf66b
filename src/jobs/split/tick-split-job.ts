import type { Services } from "../../services.ts";
import { RunnerBusy, RunnerUnreachable } from "../../runner/runner-client.ts";
import type { RunnerJobStatus } from "../../runner/runner-protocol.ts";
import { jobSpecOf, PROGRESS_SAVE_INTERVAL_MS, saveProgress } from "../store/job-store.ts";
import { jobTimeoutMs, timedOutMessage } from "../request/job-request.ts";
import { failedEnding, endingFromRunner } from "../lifecycle/job-endings.ts";
import {
  CAPACITY_RETRY_MS,
  DEADLINE_GRACE_MS,
  RUNNER_ATTEMPTS,
  RUNNER_LOST_AFTER_MISSES,
  attemptRetryDelayMs,
} from "../lifecycle/retry-policy.ts";
import { affordableWorkers } from "../store/credit-reservations.ts";
import type { TickState, NextTick } from "../lifecycle/tick-state.ts";
import { planSplitJob } from "./plan-split-job.ts";
import { claimTask, endTaskStatement, listTasks, loseTask, unclaimTask } from "./task-store.ts";
import { describeTask, isEmptySegment, segmentsToJoin } from "./split-tasks.ts";
import { taskRequest } from "./task-requests.ts";
import { completeSplitJob, stopSplitJob, TASK_STOPPED_MESSAGE } from "./end-split-job.ts";
import { splitProgress } from "./split-progress.ts";
import { markStarted } from "../transitions/mark-started.ts";
import type { JobRow } from "../store/job-row.ts";
import type { JobTask } from "./split-task.ts";

/**
 * One coordinator tick of a split job (running from its claim): plan it once, then look at every task
 * under way, take what finished, retry a lost one alone (up to RUNNER_ATTEMPTS), hand the tasks whose
 * needs are met to runners of their own (at most `maxWorkers` at once), and end the job when the last
 * task completes, a task fails, or the deadline passes. Every branch ends the job or names the next tick.
 */
export async function tickSplitJob(s: Services, job: JobRow, state: TickState): Promise<NextTick> {
  const spec = jobSpecOf(job);
  const now = s.now();
  const poll = (patch: Partial<TickState> = {}, delayMs = s.config.runnerPollIntervalMs): NextTick => ({
    state: { ...state, ...patch },
    delayMs,
  });
  // Running from its claim (dispatch-job.ts); a tick that finds it claimed but not yet running makes it so.
  if (job.status === "queued" && (await markStarted(s.db, job.id, now.toISOString(), now.toISOString())))
    s.onStatus?.("running");
  const startedMs = Date.parse(job.started_at ?? job.dispatched_at ?? now.toISOString());
  let tasks = await listTasks(s.db, job.id);
  const timeoutMs = jobTimeoutMs(spec, s.config.jobTimeoutMs);
  if (now.getTime() > startedMs + timeoutMs + DEADLINE_GRACE_MS) {
    await stopSplitJob(s, job, tasks, (seconds) =>
      failedEnding("JOB_TIMEOUT", timedOutMessage(timeoutMs), seconds, s.config.creditsPerSecond),
    );
    return { done: true };
  }
  if (!tasks.length) {
    const plan = await planSplitJob(s, job);
    if (plan.kind === "busy") return poll({}, CAPACITY_RETRY_MS);
    if (plan.kind === "failed" || (plan.kind === "unreachable" && state.misses + 1 >= RUNNER_ATTEMPTS)) {
      const code = plan.kind === "failed" ? plan.code : "RUNNER_UNAVAILABLE";
      await stopSplitJob(s, job, [], () =>
        failedEnding(
          code,
          plan.kind === "failed"
            ? plan.message
            : `No runner could probe the input to plan the split (${state.misses + 1} attempts)`,
        ),
      );
      return { done: true };
    }
    if (plan.kind === "unreachable") return poll({ misses: state.misses + 1 }, attemptRetryDelayMs(state.misses + 1));
    tasks = await listTasks(s.db, job.id);
  }

  const misses = { ...(state.taskMisses ?? {}) };
  /** The tasks as this tick leaves them. */
  const current = new Map(tasks.map((t) => [t.name, t]));
  let wholeProgress = null;
  const framesByTask = new Map<string, number>();
  for (const [task, status] of await Promise.all(
    tasks.filter((t) => t.status === "running").map(async (t) => [t, await statusOf(s, t)] as const),
  )) {
    const runnerId = task.runnerId!;
    if (!status || status.outcome?.errorCode === "RUNNER_LOST") {
      misses[runnerId] = (misses[runnerId] ?? 0) + 1;
      if (status || misses[runnerId] >= RUNNER_LOST_AFTER_MISSES) {
        // Lost (its runner gave it up, or stopped answering about it): it alone goes back in line.
        delete misses[runnerId];
        await s.runner.release(runnerId);
        await loseTask(s.db, job.id, task.name, runnerId);
        current.set(task.name, { ...task, status: "pending", runnerId: null });
        console.warn(
          `job ${job.id}: ${describeTask(task.name, task.params)} lost on attempt ${task.attempts}; trying it again`,
        );
      }
      continue;
    }
    delete misses[runnerId];
    if (task.params.kind === "whole") wholeProgress = status.progress;
    if (status.progress?.frames != null) framesByTask.set(task.name, status.progress.frames);
    if (!status.outcome) continue;
    const o = status.outcome;
    const completed = o.status === "completed" || isEmptySegment(task, o);
    const result = {
      outputs: o.outputs.map((x) => ({ name: x.name, size: x.size })),
      timings: o.timings,
      finishedAt: o.finishedAt,
      ...(o.inputReads ? { inputReads: o.inputReads } : {}),
      ...(o.seams !== undefined ? { seams: o.seams } : {}),
    };
    const end = completed
      ? { status: "completed" as const, result }
      : {
          status: "failed" as const,
          // Only the coordinator cancels a task (its job ended): said the same whichever path records it first.
          errorMessage: o.status === "canceled" ? TASK_STOPPED_MESSAGE : (o.errorMessage ?? o.status),
        };
    const ended = endTaskStatement(s.db, job.id, task.name, runnerId, {
      ...end,
      runtimeMs: o.runtimeMs,
      now: now.toISOString(),
    });
    const done: JobTask = {
      ...task,
      status: end.status,
      runtimeMs: task.runtimeMs + o.runtimeMs,
      finishedAt: now.toISOString(),
    };
    current.set(task.name, done);
    const all = [...current.values()];
    if (!completed) {
      // The job fails with the task's own error, named by the task; the others are stopped, in the same batch.
      // A task runs with what was left of the job's time: its time-out is the job's, said as the job's.
      const message =
        o.errorCode === "JOB_TIMEOUT"
          ? timedOutMessage(timeoutMs)
          : task.params.kind === "whole"
            ? o.errorMessage
            : `${describeTask(task.name, task.params)}: ${o.errorMessage ?? o.status}`;
      await stopSplitJob(
        s,
        job,
        all,
        (seconds) => ({
          ...endingFromRunner(o, s.config.creditsPerSecond),
          runtimeSeconds: seconds,
          creditsCharged: seconds * s.config.creditsPerSecond,
          errorMessage: message,
          inputReads: null,
        }),
        [ended],
      );
      return { done: true };
    }
    // All done: this was the last (the join, which needs every other, or the whole run). Its end and
    // the job's are one batch; until then its runner keeps the report for the next tick to take.
    if (all.every((t) => t.status === "completed")) {
      await completeSplitJob(s, job, all, done, o, [ended]);
      return { done: true };
    }
    await ended.run();
    await s.runner.release(runnerId);
  }

  tasks = await listTasks(s.db, job.id);
  const exhausted = tasks.find((t) => t.status === "pending" && t.attempts >= RUNNER_ATTEMPTS);
  if (exhausted) {
    const message = `${describeTask(exhausted.name, exhausted.params)} was lost on ${exhausted.attempts} runners (restarted, evicted or unreachable)`;
    await stopSplitJob(s, job, tasks, (seconds) =>
      failedEnding("RUNNER_LOST", message, seconds, s.config.creditsPerSecond),
    );
    return { done: true };
  }
  const segments = tasks.filter((t) => t.params.kind === "segment");
  if (segments.length && segments.every((t) => t.status === "completed") && !segmentsToJoin(tasks).length) {
    const message =
      "No segment of the input's video had a frame: the input has none where its header says its video is";
    await stopSplitJob(s, job, tasks, (seconds) =>
      failedEnding("OUTPUT_EMPTY", message, seconds, s.config.creditsPerSecond),
    );
    return { done: true };
  }
  const busy = await startReadyTasks(
    s,
    job,
    tasks,
    spec.parallel?.maxWorkers ?? 1,
    startedMs + timeoutMs - now.getTime(),
  );
  const progress = splitProgress(await listTasks(s.db, job.id), wholeProgress, framesByTask);
  s.onProgress?.(progress, now.toISOString());
  const save =
    state.progressSavedAtMs === undefined || now.getTime() - state.progressSavedAtMs >= PROGRESS_SAVE_INTERVAL_MS;
  if (save) await saveProgress(s.db, job.id, progress, now.toISOString());
  return poll(
    { taskMisses: misses, ...(save ? { progressSavedAtMs: now.getTime() } : {}) },
    busy ? CAPACITY_RETRY_MS : s.config.runnerPollIntervalMs,
  );
}

/** A task's runner report; null when its runner does not know it or cannot answer now (a missed poll). */
async function statusOf(s: Services, task: JobTask): Promise<RunnerJobStatus | null> {
  return s.runner.status(task.runnerId!).catch((err) => {
    if (err instanceof RunnerUnreachable || err instanceof RunnerBusy) return null;
    throw err;
  });
}

/** A task is not started with less of the job's time than this left (a runner refuses a job with none). */
const MIN_TASK_TIME_MS = 2_000;

/**
 * Hands the tasks whose needs have completed to runners of their own, while fewer than `maxWorkers`
 * (or what the account's balance covers) run. True when a runner had no room (the next tick comes after CAPACITY_RETRY_MS).
 */
async function startReadyTasks(
  s: Services,
  job: JobRow,
  tasks: JobTask[],
  maxWorkers: number,
  remainingMs: number,
): Promise<boolean> {
  const done = new Set(tasks.filter((t) => t.status === "completed").map((t) => t.name));
  let running = tasks.filter((t) => t.status === "running").length;
  const ready = tasks.filter((t) => t.status === "pending" && t.needs.every((n) => done.has(n)));
  // Too little time left for a task to do anything: the deadline's tick ends the job instead.
  if (!ready.length || running >= maxWorkers || remainingMs < MIN_TASK_TIME_MS) return false;
  // A limited balance runs fewer at once (credit-reservations.ts).
  const workers = await affordableWorkers(s.db, job, maxWorkers, s.config.creditsPerSecond);
  for (const task of ready) {
    if (running >= workers) return false;
    const runnerId = crypto.randomUUID();
    if (!(await claimTask(s.db, job.id, task, runnerId, s.now().toISOString()))) continue;
    try {
      await s.runner.start(await taskRequest(s, job, task, runnerId, remainingMs));
      running++;
    } catch (err) {
      if (err instanceof RunnerBusy) {
        await unclaimTask(s.db, job.id, task.name, runnerId);
        return true;
      }
      console.error(`job ${job.id}: handing ${task.name} to a runner failed (attempt ${task.attempts + 1})`, err);
      await s.runner.release(runnerId);
      await loseTask(s.db, job.id, task.name, runnerId);
    }
  }
  return false;
}
