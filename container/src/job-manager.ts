import type { RunnerJobRequest, RunnerJobStatus, RunnerOutcome } from "../../src/runner/runner-protocol.ts";
import { executeJob } from "./execute-job.ts";
import { createSemaphore } from "./semaphore.ts";
import type { RunnerSettings } from "./settings.ts";

type TrackedJob = {
  status: RunnerJobStatus;
  canceled: boolean;
  abort: AbortController;
  kill: (() => void) | null;
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
    const tracked: TrackedJob = {
      status: { jobId: req.jobId, state: "waiting", progress: null, outcome: null },
      canceled: false,
      abort: new AbortController(),
      kill: null,
      finished: Promise.resolve(null as unknown as RunnerOutcome),
    };
    tracked.finished = (async () => {
      const release = await slots.acquire();
      try {
        if (tracked.canceled) return canceledBeforeStart();
        return await execute(req, settings, {
          setState: (s) => (tracked.status.state = s),
          setProgress: (p) => (tracked.status.progress = p),
          onCancelable: (kill) => (tracked.kill = kill),
          isCanceled: () => tracked.canceled,
          canceled: tracked.abort.signal,
        });
      } finally {
        release();
      }
    })().then((outcome) => {
      tracked.status.state = "finished";
      tracked.status.outcome = outcome;
      setTimeout(() => jobs.delete(req.jobId), settings.reportRetentionMs).unref();
      return outcome;
    });
    jobs.set(req.jobId, tracked);
    return tracked.status;
  }

  /** Kills the job's process (or drops it from the wait line) and waits briefly for its final report. */
  async function cancel(jobId: string): Promise<RunnerJobStatus | null> {
    const tracked = jobs.get(jobId);
    if (!tracked) return null;
    if (!tracked.status.outcome) {
      tracked.canceled = true;
      tracked.abort.abort(new Error("canceled"));
      tracked.kill?.();
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
