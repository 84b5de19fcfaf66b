/**
 * Which container instance runs a job: the seam where cold starts are traded against isolation.
 * - "pool" (default; "pool:N" caps it at N instances, default 20 = wrangler.toml's max_instances): a
 *   warm pool. A job gets an idle running container when there is one (no cold start), else a new
 *   one while under the cap, else it waits queued. One job at a time per container; between jobs
 *   the job's folder is deleted and the egress re-scoped; a container idle for
 *   CONTAINER_IDLE_SECONDS stops. Jobs of different accounts use the same container one after
 *   another (each ffmpeg run still in its own sandbox, seeing only its own folder).
 * - "per-job": every job gets a fresh container (its own VM in production), destroyed when the job
 *   ends. Strongest isolation; every job pays a cold start.
 */
export type ContainerPlacement = { kind: "per-job" } | { kind: "pool"; maxInstances: number };

export const DEFAULT_POOL_INSTANCES = 20;

export function parsePlacement(value: string): ContainerPlacement | null {
  if (value === "per-job") return { kind: "per-job" };
  if (value === "pool") return { kind: "pool", maxInstances: DEFAULT_POOL_INSTANCES };
  const pool = /^pool:([1-9][0-9]{0,3})$/.exec(value);
  return pool ? { kind: "pool", maxInstances: Number(pool[1]) } : null;
}
