/** What a waiter learns: whether it was woken (or its time ran out), and whether the job has ended. */
export type Woken = { woken: boolean; ended: boolean };

/**
 * The clients a job's coordinator holds in its memory: event streams waiting for its next tick, and
 * long-poll waits for the job's end. An end is remembered: a wait for it that comes later is answered at
 * once (a job that ends before its waiter asks does not hold the waiter a whole slice).
 */
export class JobWaiters {
  #tick = new Set<(ended: boolean) => void>();
  #end = new Set<(ended: boolean) => void>();
  /** The job ended; `wake(true)` (a cancel's) wakes the end's waiters too, but only `ended` sets this. */
  #sawEnd = false;

  /** The next tick (or the end), or `timeoutMs` without one. */
  nextTick(timeoutMs: number): Promise<Woken> {
    return wait(this.#tick, timeoutMs);
  }

  /** True when the job ends (or has ended), false after `timeoutMs`. */
  async end(timeoutMs: number): Promise<boolean> {
    if (this.#sawEnd) return true;
    return (await wait(this.#end, timeoutMs)).woken;
  }

  /** A tick happened; with `ended`, the end's waiters are woken too (they read the job and may wait again). */
  wake(ended: boolean): void {
    for (const w of [...this.#tick, ...(ended ? this.#end : [])]) w(ended);
  }

  /** The job is terminal: everyone is woken, now and later. */
  ended(): void {
    this.#sawEnd = true;
    this.wake(true);
  }
}

function wait(waiters: Set<(ended: boolean) => void>, timeoutMs: number): Promise<Woken> {
  return new Promise((resolve) => {
    const done = (woken: boolean, ended: boolean) => {
      waiters.delete(wake);
      clearTimeout(timer);
      resolve({ woken, ended });
    };
    const wake = (ended: boolean) => done(true, ended);
    const timer = setTimeout(() => done(false, false), timeoutMs);
    waiters.add(wake);
  });
}
