/**
 * What a job's coordinator keeps between ticks: which job, and whether it is handing the job to a
 * runner ("dispatch") or watching the runner run it ("watch"). The job's status, attempts and
 * deadline live in D1; this is only where the coordinator is in its loop.
 */
export type TickState = {
  jobId: string;
  /** "split": a split encode's tasks (src/jobs/split/), each on a runner of its own. */
  phase: "dispatch" | "watch" | "split";
  misses: number;
  /** Split jobs: consecutive polls each running task's runner missed, by runner id. */
  taskMisses?: Record<string, number>;
  /** When the running job's progress was last written to D1 (it is written at most every PROGRESS_SAVE_INTERVAL_MS). */
  progressSavedAtMs?: number;
};
/** After a tick: the job is terminal (nothing more to do), or the next tick runs in `delayMs`. */
export type NextTick = { done: true } | { done?: false; state: TickState; delayMs: number };
