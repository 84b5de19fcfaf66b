import type { ContainerPool } from "./container-pool.ts";
import type { FfmpegContainer } from "./ffmpeg-container.ts";
import type { ContainerPlacement } from "./container-placement.ts";
import { RunnerBusy, type RunnerTransport } from "./runner-client.ts";

/**
 * Production: a job's runner is a container instance, its own (per-job) or one from the warm pool,
 * which the pool's Durable Object hands out and takes back.
 */
export function containerTransport(
  containers: DurableObjectNamespace<FfmpegContainer>,
  pools: DurableObjectNamespace<ContainerPool>,
  placement: ContainerPlacement,
): RunnerTransport {
  const pool = pools.get(pools.idFromName("pool"));
  const known = new Map<string, string>();
  const container = (name: string) => containers.get(containers.idFromName(name));
  async function instanceOf(jobId: string): Promise<string | null> {
    if (placement.kind === "per-job") return jobId;
    const name = known.get(jobId) ?? (await pool.instanceOf(jobId));
    if (name) known.set(jobId, name);
    return name;
  }
  return {
    async prepare(jobId, scope) {
      const name = placement.kind === "per-job" ? jobId : await pool.acquire(jobId, placement.maxInstances);
      if (!name)
        throw new RunnerBusy(`all ${placement.kind === "pool" ? placement.maxInstances : 1} containers are busy`);
      known.set(jobId, name);
      // The scope names its job, so the Worker's DNS answers are kept per job (src/net/resolution-cache.ts).
      return container(name).admitJob(jobId, { ...scope, jobId });
    },
    async fetch(jobId, path, init) {
      const name = await instanceOf(jobId);
      // No instance holds the job (released, or never placed): as a runner that does not know it.
      if (!name) return Response.json({ error: "unknown job" }, { status: 404 });
      return container(name).fetch(new Request(`http://runner${path}`, init));
    },
    async release(jobId) {
      const name = await instanceOf(jobId);
      if (name) await container(name).releaseJob(jobId, placement.kind === "per-job");
      if (placement.kind === "pool") await pool.release(jobId);
      known.delete(jobId);
    },
    // A hand-over may boot a container: cold starts are seconds, reported up to tens of seconds.
    timeouts: { startMs: 90_000, callMs: 15_000 },
  };
}
