import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env.ts";
import { counted } from "../platform/invocation.ts";
import { countEachInvocation } from "../platform/counted-durable-object.ts";
import { acquire, busyJobIds, instanceOf, reclaimable, release, type PoolState } from "./pool-state.ts";

/** A dry run's probe or a capabilities read holds an instance at most this long (its caller releases it sooner). */
const SIDE_CALL_LEASE_MS = 5 * 60_000;

/**
 * The warm pool's one point of truth (one instance, named "pool"): hands out container instances to
 * jobs, one job each, and takes them back. Single-threaded, so two jobs never get the same
 * instance. An instance held by a job that is already finished (its coordinator died before
 * releasing it) is taken back when the pool is full.
 */
export class ContainerPool extends DurableObject<Env> {
  static {
    countEachInvocation(ContainerPool);
  }

  // Each change reads, changes and writes the state with no other call in between (the reclaim's D1
  // query is an await where another acquire could otherwise take the same instance).
  acquire(jobId: string, maxInstances: number): Promise<string | null> {
    return this.ctx.blockConcurrencyWhile(async () => {
      const state = await this.#load();
      let name = acquire(state, jobId, Date.now(), maxInstances, () => `pool-${crypto.randomUUID()}`);
      if (name === null && (await this.#reclaimFinished(state))) {
        name = acquire(state, jobId, Date.now(), maxInstances, () => `pool-${crypto.randomUUID()}`);
      }
      await this.ctx.storage.put("pool", state);
      return name;
    });
  }

  release(jobId: string): Promise<void> {
    return this.ctx.blockConcurrencyWhile(async () => {
      const state = await this.#load();
      release(state, jobId, Date.now());
      await this.ctx.storage.put("pool", state);
    });
  }

  async instanceOf(jobId: string): Promise<string | null> {
    return instanceOf(await this.#load(), jobId);
  }

  async #load(): Promise<PoolState> {
    return (await this.ctx.storage.get<PoolState>("pool")) ?? { entries: [] };
  }

  /** Releases instances whose job is no longer queued or running (or whose side call outlived its lease); true if any was. */
  async #reclaimFinished(state: PoolState): Promise<boolean> {
    const busy = busyJobIds(state);
    if (!busy.length) return false;
    // One parameter whatever the pool's size: D1 binds at most 100 per statement (a pool may hold 9999).
    // A split job's tasks hold instances under runner ids of their own (src/jobs/split/task-store.ts).
    const jobs = await counted(this.env)
      .DB.prepare(
        `SELECT id, status FROM jobs WHERE id IN (SELECT value FROM json_each(?1))
       UNION ALL SELECT runner_id, CASE status WHEN 'running' THEN 'running' ELSE 'completed' END FROM job_tasks WHERE runner_id IN (SELECT value FROM json_each(?1))`,
      )
      .bind(JSON.stringify(busy))
      .all<{ id: string; status: string }>();
    const now = Date.now();
    const finished = reclaimable(state, new Map(jobs.results.map((r) => [r.id, r.status])), now, SIDE_CALL_LEASE_MS);
    for (const id of finished) release(state, id, now);
    return finished.length > 0;
  }
}
