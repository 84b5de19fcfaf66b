import type { Services } from "../../services.ts";
import { getJob, jobSpecOf } from "../store/job-store.ts";
import { tickSplitJob } from "../split/tick-split-job.ts";
import { releaseTasks } from "../split/end-split-job.ts";
import { listTasks } from "../split/task-store.ts";
import { isTerminal } from "../transitions/job-states.ts";
import { dispatchJob } from "./dispatch-job.ts";
import { askRunner, watchJob } from "./watch-job.ts";
import type { TickState, NextTick } from "./tick-state.ts";
import type { JobRow } from "../store/job-row.ts";
import type { RunnerJobStatus } from "../../runner/runner-protocol.ts";

/** Where a coordinator picks a job up, from what D1 says (a fresh coordinator, or one re-armed by the sweeper). */
export function firstTickState(job: JobRow): TickState {
  const withRunner = job.status === "running" || job.dispatched_at !== null;
  const split = jobSpecOf(job).parallel !== undefined;
  return { jobId: job.id, phase: !withRunner ? "dispatch" : split ? "split" : "watch", misses: 0 };
}

/**
 * One coordinator tick. Every branch ends the job or names the next tick: nothing waits unwatched.
 * `known`: the job's row as the caller just read or wrote it, instead of reading it again (every
 * transition from here is a guarded statement, so a row changed since changes nothing). A watch tick
 * asks its runner while it reads the job: the two round trips at once, not one after the other; or
 * starts from `runnerStatus`, the runner's answer to a followed call (follow-runner.ts).
 */
export async function tickJob(
  s: Services,
  state: TickState,
  known?: JobRow,
  runnerStatus?: RunnerJobStatus,
): Promise<NextTick> {
  const asked =
    state.phase !== "watch" ? null : runnerStatus ? Promise.resolve(runnerStatus) : askRunner(s, state.jobId);
  // Not awaited when the job turns out to be over: its failure then matters to nobody.
  asked?.catch(() => {});
  const job = known ?? (await getJob(s.db, state.jobId));
  if (job) s.onStatus?.(job.status);
  if (!job || isTerminal(job.status)) {
    await s.runner.release(state.jobId);
    // A split job's ending released its tasks and work files; again here, in case it was cut short.
    if (state.phase === "split") await releaseTasks(s, state.jobId, await listTasks(s.db, state.jobId));
    return { done: true };
  }
  if (state.phase === "split") return tickSplitJob(s, job, state);
  return asked ? watchJob(s, job, state, asked) : dispatchJob(s, job);
}
