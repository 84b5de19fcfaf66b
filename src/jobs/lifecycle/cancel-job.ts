import type { Services } from "../../services.ts";
import { getJob, jobSpecOf } from "../store/job-store.ts";
import { cancelSplitJob } from "../split/end-split-job.ts";
import { endJob, endJobFromRunner } from "./end-job.ts";
import { canceledEnding } from "./job-endings.ts";
import { discardUnrecordedOutputs } from "./discard-outputs.ts";
import type { JobRow } from "../store/job-row.ts";

/**
 * A cancel asked through the API. A queued job (even one waiting in its runner's line) is canceled at
 * once, and its coordinator has the runner drop it after the answer (`later`); a running one is
 * canceled through its coordinator, which stops the binary and charges what it ran. The caller reads
 * the job afterwards: if it is not canceled, it had finished first.
 */
export async function cancelOnRequest(
  s: Services,
  job: JobRow,
  coordinator: { cancel(jobId: string): Promise<boolean> },
  later: (work: Promise<unknown>) => void,
): Promise<void> {
  if (job.status === "queued" && (await endJob(s, job.id, canceledEnding()))) later(coordinator.cancel(job.id));
  const current = await getJob(s.db, job.id);
  if (current?.status === "running") await coordinator.cancel(job.id);
}

/**
 * Cancels a job that has not finished: a queued one at once (its runner, if it has one, drops it),
 * a running one through its runner, which kills the process and reports how long it ran. Returns
 * false when the job had already finished.
 */
export async function cancelJob(s: Services, jobId: string): Promise<boolean> {
  const job = await getJob(s.db, jobId);
  if (!job || job.status === "queued") {
    const canceled = job ? await endJob(s, jobId, canceledEnding()) : false;
    await s.runner.release(jobId);
    return canceled;
  }
  if (job.status !== "running") {
    await s.runner.release(jobId);
    return false;
  }
  if (jobSpecOf(job).parallel) return cancelSplitJob(s, job);
  const report = await s.runner.cancel(jobId).catch(() => null);
  const finished = report?.outcome
    ? (await endJobFromRunner(s, job, report.outcome)) && report.outcome.status === "canceled"
    : // No report (runner gone or still tearing down): cancel without a charge; nothing proves it ran.
      await endJob(s, jobId, canceledEnding());
  await s.runner.release(jobId);
  await discardUnrecordedOutputs(s, jobId);
  return finished;
}
