export type Phase = "fetchMs" | "runMs" | "storeMs";

/**
 * Splits a job's time on its runner into contiguous phases: from the slot to the inputs being in
 * place (fetch), to the binary's exit (run), to the outputs being stored and probed (store). The
 * phases meet end to end, so with the time queued and the time to record the end they add up to
 * the job's wall time.
 */
export function createPhaseClock(now: () => number = Date.now) {
  let last = now();
  let current: Phase = "fetchMs";
  const spent: Record<Phase, number> = { fetchMs: 0, runMs: 0, storeMs: 0 };
  const close = () => {
    const t = now();
    spent[current] += t - last;
    last = t;
  };
  return {
    /** The current phase is over; `next` begins. */
    next(phase: Phase) {
      close();
      current = phase;
    },
    /** Ends the current phase and returns the split, and when the runner was done. */
    stop() {
      close();
      return { timings: { ...spent }, finishedAt: new Date(last).toISOString() };
    },
  };
}
