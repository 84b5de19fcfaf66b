import type { RunnerJobState, RunnerOutcome, RunnerProgress } from "../../src/runner/runner-protocol.ts";

/** How a running job reports to its manager, and hears that it is canceled (executeJob, runSteps). */
export type JobHooks = {
  setState: (s: RunnerJobState) => void;
  setProgress: (p: RunnerProgress) => void;
  /** Called once the process runs, with a function that kills it. */
  onCancelable: (cancel: () => void) => void;
  /** Aborted when the job is canceled. */
  canceled: AbortSignal;
  /** The CPU the job's commands are pinned to (RUNNER_PIN_CPUS), or null. */
  cpu?: number | null;
  /**
   * The outcome, as soon as it is known: before the job's probes, input server and folder are cleaned
   * up (executeJob returns after that), so its coordinator hears of the end without waiting on them.
   */
  reportOutcome?: (outcome: RunnerOutcome) => void;
};
