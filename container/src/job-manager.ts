import {
  followReached,
  type RunnerFollow,
  type RunnerJobRequest,
  type RunnerJobStatus,
  type RunnerOutcome,
} from "../../src/runner/runner-protocol.ts";
import { executeJob } from "./execute-job.ts";
import { createSemaphore } from "./semaphore.ts";
import { createCpuPins } from "./cpu-pins.ts";
import { createNotifier } from "./notifier.ts";
import type { RunnerSettings } from "./settings.ts";

type TrackedJob = {
  status: RunnerJobStatus;
  /** Aborting cancels: a waiting job leaves the line, input downloads stop, a running process is killed. */
  abort: AbortController;
  finished: Promise<RunnerOutcome>;
  /** When the coordinator last asked about the job: its lease. */
  lastSeenMs: number;
  leaseMs: number;
  /** The coordinator's status call held until the job reaches its `until` (waitFor): one at a time. */
  followers: Set<Follower>;
  /** The notification a held call's answer stands in for, sent anyway unless the coordinator asks again first. */
  backup: { timer: NodeJS.Timeout | null };
};
type Follower = { until: RunnerFollow["until"]; wake: () => void };

/**
 * A held call's answer may reach nobody (a caller gone without the runner seeing it yet, a proxy that
 * keeps the connection): the change's notification follows it this long after, unless the coordinator
 * asked about the job again in between, as it does at once after an answer it read.
 */
const BACKUP_NOTIFY_MS = 1_500;

const CANCEL_WAIT_MS = 10_000;
const LEASE_CHECK_INTERVAL_MS = 1_000;

/**
 * The runner's jobs: at most `concurrency` execute at once, the rest wait oldest first; each keeps
 * its final report until the coordinator collects it (DELETE) or it expires. Submitting a known job
 * id is a no-op, so a retried hand-over never runs a job twice. A job whose coordinator stops
 * asking about it (its lease runs out) is canceled: nobody would collect its result.
 */
export function createJobManager(settings: RunnerSettings, execute = executeJob, now = Date.now) {
  const jobs = new Map<string, TrackedJob>();
  /** Jobs whose execution has not returned: reported ones may still be cleaning up (their folder, servers). */
  const settling = new Set<string>();
  const slots = createSemaphore(settings.concurrency);
  const pins = settings.pinCpus ? createCpuPins(settings.pinCpus) : null;

  let draining = false;

  /** A job's status; null when the runner is draining and takes no new job. */
  function submit(req: RunnerJobRequest): RunnerJobStatus | null {
    const known = jobs.get(req.jobId);
    if (known) return seen(known).status;
    if (draining) return null;
    const status: RunnerJobStatus = {
      jobId: req.jobId,
      state: "waiting",
      startedAt: null,
      progress: null,
      outcome: null,
    };
    const abort = new AbortController();
    const notify = createNotifier(req.notifyUrl, settings.controlSecret);
    const followers = new Set<Follower>();
    const backup: TrackedJob["backup"] = { timer: null };
    /** A change the coordinator acts on: its held call answers it (the notification held back), or its notification. */
    const tell = () => {
      let heard = false;
      for (const f of [...followers])
        if (followReached(status, f.until)) {
          f.wake();
          heard = true;
        }
      if (!heard) return notify.now();
      if (backup.timer) clearTimeout(backup.timer);
      backup.timer = setTimeout(() => notify.now(), BACKUP_NOTIFY_MS);
      backup.timer.unref();
    };
    /** The final report, once: what the coordinator collects; the job's clean-up may still run after it. */
    const report = (ran: RunnerOutcome): RunnerOutcome => {
      if (status.outcome) return status.outcome;
      // A run stopped because its coordinator went quiet is the infrastructure's loss, not a cancel.
      const outcome = abort.signal.reason?.message === "orphaned" ? orphaned(ran) : ran;
      if (status.startedAt) console.log(`job ${req.jobId}: finished (${outcome.status})`);
      status.state = "finished";
      status.outcome = outcome;
      tell();
      return outcome;
    };
    const finished = (async () => {
      let release: () => void;
      try {
        release = await slots.acquire(req.createdAt, abort.signal);
      } catch {
        return canceledBeforeStart();
      }
      const cpu = pins?.take() ?? null;
      try {
        status.startedAt = new Date(now()).toISOString();
        console.log(`job ${req.jobId}: started`);
        return await execute(req, settings, {
          setState: (s) => {
            const leavesTheLine = status.state === "waiting";
            status.state = s;
            if (leavesTheLine) tell();
          },
          setProgress: (p) => {
            status.progress = p;
            if (req.notifyProgress !== false) notify.throttled();
          },
          // A cancel that landed before the process existed kills it as soon as it does.
          onCancelable: (kill) =>
            abort.signal.aborted ? kill() : abort.signal.addEventListener("abort", kill, { once: true }),
          canceled: abort.signal,
          cpu,
          reportOutcome: report,
        });
      } finally {
        if (cpu !== null) pins?.give(cpu);
        release();
      }
    })().then((ran) => {
      settling.delete(req.jobId);
      // Reported already unless it ended before it ran (canceled in line); its slot is free only now.
      const outcome = report(ran);
      setTimeout(() => jobs.delete(req.jobId), settings.reportRetentionMs).unref();
      return outcome;
    });
    settling.add(req.jobId);
    jobs.set(req.jobId, { status, abort, finished, lastSeenMs: now(), leaseMs: req.leaseMs, followers, backup });
    return status;
  }

  /** The coordinator asked about the job: its lease runs on, and it needs no notification of what it can see. */
  function seen(job: TrackedJob): TrackedJob {
    if (job.backup.timer) clearTimeout(job.backup.timer);
    job.backup.timer = null;
    return touched(job);
  }

  function touched(job: TrackedJob): TrackedJob {
    job.lastSeenMs = now();
    return job;
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

  /**
   * The job's status once `until` holds, or after `waitMs`, or when `gone` (the caller left); null for
   * a job this runner does not know. Asked this way, the change is not also notified.
   */
  function waitFor(jobId: string, until: RunnerFollow["until"], waitMs: number, gone: AbortSignal) {
    const job = jobs.get(jobId);
    if (!job) return Promise.resolve(null);
    seen(job);
    if (followReached(job.status, until) || gone.aborted) return Promise.resolve(job.status);
    // One at a time: a newer call answers the one before it with the status of now.
    for (const f of [...job.followers]) f.wake();
    return new Promise<RunnerJobStatus>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        gone.removeEventListener("abort", done);
        job.followers.delete(follower);
        resolve(touched(job).status);
      };
      const follower: Follower = { until, wake: done };
      const timer = setTimeout(done, waitMs);
      gone.addEventListener("abort", done, { once: true });
      job.followers.add(follower);
    });
  }

  /** The coordinator is done with the job: stop it if it still runs, and drop it. */
  function release(jobId: string): void {
    const job = jobs.get(jobId);
    job?.abort.abort(new Error("released"));
    for (const f of [...(job?.followers ?? [])]) f.wake();
    if (job) seen(job);
    jobs.delete(jobId);
  }

  const leaseCheck = setInterval(() => {
    for (const [jobId, job] of jobs) {
      // A held status call is the coordinator asking, for as long as it is held.
      if (job.followers.size > 0) touched(job);
      if (job.status.outcome || job.abort.signal.aborted || now() - job.lastSeenMs < job.leaseMs) continue;
      console.error(
        `job ${jobId}: no word from its coordinator for ${Math.round(job.leaseMs / 1000)} s; canceled as orphaned`,
      );
      job.abort.abort(new Error("orphaned"));
    }
  }, LEASE_CHECK_INTERVAL_MS);
  leaseCheck.unref();

  return {
    submit,
    cancel,
    release,
    waitFor,
    status: (jobId: string) => {
      const job = jobs.get(jobId);
      return job ? seen(job).status : null;
    },
    activeCount: () => [...jobs.values()].filter((j) => !j.status.outcome).length,
    /** Jobs still running or cleaning up, or finished with a report their coordinator has not collected. */
    heldCount: () => new Set([...jobs.keys(), ...settling]).size,
    /** Takes no new job from now on (the container is being replaced). */
    drain: () => {
      draining = true;
    },
    stop: () => clearInterval(leaseCheck),
  };
}

function orphaned(ran: RunnerOutcome): RunnerOutcome {
  return {
    ...ran,
    status: "failed",
    errorCode: "RUNNER_LOST",
    errorMessage: "The runner stopped the job: its coordinator stopped asking about it",
    outputs: [],
  };
}

function canceledBeforeStart(): RunnerOutcome {
  return {
    status: "canceled",
    exitCode: null,
    runtimeMs: 0,
    errorCode: "CANCELED",
    errorMessage: "The job was canceled",
    stdout: "",
    stderrTail: "",
    outputs: [],
    timings: { fetchMs: 0, runMs: 0, storeMs: 0 },
    finishedAt: new Date().toISOString(),
  };
}
