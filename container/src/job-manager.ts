import type { RunnerJobRequest, RunnerJobStatus, RunnerOutcome } from "../../src/runner/runner-protocol.ts";
import { executeJob } from "./execute-job.ts";
import { createSemaphore } from "./semaphore.ts";
import type { RunnerSettings } from "./settings.ts";

type TrackedJob = {
  status: RunnerJobStatus;
  /** Aborting cancels: input downloads stop, a waiting job never starts, a running process is killed. */
  abort: AbortController;
  finished: Promise<RunnerOutcome>;
};

const CANCEL_WAIT_MS = 10_000;

/**
 * The runner's jobs: at most `concurrency` execute at once, each keeps its final report until the
 * coordinator collects it (DELETE) or it expires. Submitting a known job id is a no-op.
 */
export function createJobManager(settings: RunnerSettings, execute = executeJob) {
  const jobs = new Map<string, TrackedJob>();
  const slots = createSemaphore(settings.concurrency);

  function submit(req: RunnerJobRequest): RunnerJobStatus {
    const known = jobs.get(req.jobId);
    if (known) return known.status;
    const status: RunnerJobStatus = { jobId: req.jobId, state: "waiting", progress: null, outcome: null };
    const abort = new AbortController();
    const finished = (async () => {
      const release = await slots.acquire();
      try {
        if (abort.signal.aborted) return canceledBeforeStart();
        return await execute(req, settings, {
          setState: (s) => (status.state = s),
          setProgress: (p) => (status.progress = p),
          // A cancel that landed before the process existed kills it as soon as it does.
          onCancelable: (kill) => (abort.signal.aborted ? kill() : abort.signal.addEventListener("abort", kill, { once: true })),
          canceled: abort.signal,
        });
      } finally {
        release();
      }
    })().then((outcome) => {
      status.state = "finished";
      status.outcome = outcome;
      setTimeout(() => jobs.delete(req.jobId), settings.reportRetentionMs).unref();
      return outcome;
    });
    jobs.set(req.jobId, { status, abort, finished });
    return status;
  }

  /** Cancels the job (see TrackedJob.abort) and waits briefly for its final report. */
  async function cancel(jobId: string): Promise<RunnerJobStatus | null> {
    const tracked = jobs.get(jobId);
    if (!tracked) return null;
    if (!tracked.status.outcome) {
      tracked.abort.abort(new Error("canceled"));
      await Promise.race([tracked.finished, new Promise((r) => setTimeout(r, CANCEL_WAIT_MS).unref())]);
    }
    return tracked.status;
  }

  return {
    submit,
    cancel,
    status: (jobId: string) => jobs.get(jobId)?.status ?? null,
    forget: (jobId: string) => jobs.delete(jobId),
    activeCount: () => [...jobs.values()].filter((j) => !j.status.outcome).length,
  };
}

function canceledBeforeStart(): RunnerOutcome {
  return {
    status: "canceled", exitCode: null, runtimeMs: 0, errorCode: "CANCELED", errorMessage: "The job was canceled",
    stdout: "", stderrTail: "", outputs: [],
  };
}
