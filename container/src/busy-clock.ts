/**
 * The wall time during which at least one of some overlapping pieces of work ran: the sends of a
 * job's outputs to its client's storage, which go on side by side and are billed once.
 */
export type BusyClock = { time: <T>(work: () => Promise<T>) => Promise<T>; ms: () => number };

export function createBusyClock(now: () => number = Date.now): BusyClock {
  let active = 0;
  let since = 0;
  let totalMs = 0;
  return {
    async time(work) {
      if (active++ === 0) since = now();
      try {
        return await work();
      } finally {
        if (--active === 0) totalMs += now() - since;
      }
    },
    ms: () => totalMs + (active > 0 ? now() - since : 0),
  };
}
