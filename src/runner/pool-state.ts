/**
 * The warm pool's bookkeeping, as plain data and functions (the ContainerPool Durable Object only
 * stores it): which container instances exist and which job, if any, each one runs.
 */
export type PoolEntry = { name: string; jobId: string | null; idleSinceMs: number | null; busySinceMs?: number };
export type PoolState = { entries: PoolEntry[] };

/**
 * An instance for `jobId`: the one it already has (a retried hand-over), else the instance idle the
 * shortest time (the likeliest still running, so warm), else a new one under `max`; null when all
 * `max` are busy.
 */
export function acquire(
  state: PoolState,
  jobId: string,
  nowMs: number,
  max: number,
  newName: () => string,
): string | null {
  const own = state.entries.find((e) => e.jobId === jobId);
  if (own) return own.name;
  const idle = state.entries
    .filter((e) => e.jobId === null)
    .sort((a, b) => (b.idleSinceMs ?? 0) - (a.idleSinceMs ?? 0))[0];
  if (idle) {
    idle.jobId = jobId;
    idle.idleSinceMs = null;
    idle.busySinceMs = nowMs;
    return idle.name;
  }
  if (state.entries.length >= max) return null;
  const name = newName();
  state.entries.push({ name, jobId, idleSinceMs: null, busySinceMs: nowMs });
  return name;
}

/** The job is over: its instance is idle (warm until it stops for inactivity). */
export function release(state: PoolState, jobId: string, nowMs: number): void {
  for (const e of state.entries) {
    if (e.jobId === jobId) {
      e.jobId = null;
      e.idleSinceMs = nowMs;
    }
  }
}

export function instanceOf(state: PoolState, jobId: string): string | null {
  return state.entries.find((e) => e.jobId === jobId)?.name ?? null;
}

/**
 * Holders whose instance can be taken back: jobs that have ended (`statuses` has every holder that
 * is a job), and holders that are no job at all — a dry run's probe, a capabilities read — once they
 * have held it longer than `sideCallLeaseMs` (their caller releases them; this covers a caller that died).
 */
export function reclaimable(
  state: PoolState,
  statuses: ReadonlyMap<string, string>,
  nowMs: number,
  sideCallLeaseMs: number,
): string[] {
  return state.entries.flatMap((e) => {
    if (!e.jobId) return [];
    const status = statuses.get(e.jobId);
    if (status !== undefined) return status === "queued" || status === "running" ? [] : [e.jobId];
    return nowMs - (e.busySinceMs ?? 0) > sideCallLeaseMs ? [e.jobId] : [];
  });
}

export function busyJobIds(state: PoolState): string[] {
  return state.entries.flatMap((e) => (e.jobId ? [e.jobId] : []));
}
