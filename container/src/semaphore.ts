/**
 * At most `limit` holders at once. Waiters are served oldest `rank` first (the job's creation
 * time: an account's jobs start in the order they were created, whatever order they arrived in),
 * and a waiter whose signal aborts leaves the line at once.
 */
export function createSemaphore(limit: number) {
  let active = 0;
  type Waiter = { rank: string; grant: () => void };
  const waiting: Waiter[] = [];

  function release(): void {
    const next = waiting.shift();
    if (next) next.grant();
    else active--;
  }

  return {
    async acquire(rank = "", signal?: AbortSignal): Promise<() => void> {
      signal?.throwIfAborted();
      if (active < limit) active++;
      else {
        await new Promise<void>((resolve, reject) => {
          const waiter: Waiter = {
            rank,
            grant: () => {
              signal?.removeEventListener("abort", leave);
              resolve();
            },
          };
          const leave = () => {
            waiting.splice(waiting.indexOf(waiter), 1);
            reject(signal!.reason);
          };
          const at = waiting.findIndex((w) => w.rank > rank);
          waiting.splice(at < 0 ? waiting.length : at, 0, waiter);
          signal?.addEventListener("abort", leave, { once: true });
        });
      }
      let released = false;
      return () => {
        if (released) return;
        released = true;
        release();
      };
    },
    waitingCount: () => waiting.length,
  };
}
