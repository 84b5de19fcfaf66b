/**
 * Which container instance runs a job: the seam where cold starts are traded against isolation.
 * - "per-job" (default): every job gets a fresh instance (its own VM in production) that is
 *   destroyed when the job ends. Strongest isolation; every job pays a cold start.
 * - "pool:N": N long-lived instances, a job placed by its id; an idle instance stays warm for
 *   `sleepAfter`. No cold start on a warm instance, but jobs of different accounts share
 *   instances one after another (egress stays scoped per job). Meant for single-tenant
 *   deployments and for measuring warm starts; the performance work builds on this seam.
 */
export type ContainerPlacement = {
  instanceFor(jobId: string): string;
  /** Whether the job's instance ends with the job. */
  stopsWithJob: boolean;
};

export function parsePlacement(value: string): ContainerPlacement | null {
  if (value === "per-job") return { instanceFor: (jobId) => jobId, stopsWithJob: true };
  const pool = /^pool:([1-9][0-9]{0,3})$/.exec(value);
  if (!pool) return null;
  const size = Number(pool[1]);
  return { instanceFor: (jobId) => `pool-${stableHash(jobId) % size}`, stopsWithJob: false };
}

/** FNV-1a: the same job id lands on the same instance in every isolate. */
function stableHash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}
