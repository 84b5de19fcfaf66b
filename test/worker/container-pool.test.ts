import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { parsePlacement } from "../../src/runner/container-placement.ts";
import { createAccount, insertQueuedJob } from "./helpers.ts";

/**
 * A warm pool far past D1's 100 bound parameters per statement: the pool's only D1 query (which of
 * its busy jobs have finished, when it is full) binds one JSON parameter, not one per instance.
 */
describe("the warm pool at max_instances of 500", () => {
  it("works at 500 instances and more (CONTAINER_PLACEMENT=pool:500): every one busy, the next job waits, one finished job's instance is taken back", async () => {
    const pool = env.CONTAINER_POOL!.get(env.CONTAINER_POOL!.idFromName(`test-${crypto.randomUUID()}`));
    const { accountId } = await createAccount();
    const placement = parsePlacement("pool:500");
    if (placement?.kind !== "pool") throw new Error("pool:500 is a pool placement");
    const SIZE = placement.maxInstances;
    expect(SIZE).toBe(500);
    const jobs = await Promise.all(Array.from({ length: SIZE + 1 }, () => insertQueuedJob(accountId)));
    const instances = new Set<string>();
    for (const job of jobs.slice(0, SIZE)) instances.add((await pool.acquire(job, SIZE))!);
    expect(instances.size).toBe(SIZE);
    // Full: the reclaim query asks D1 about all 500 busy jobs at once (100 bound parameters would be the limit).
    expect(await pool.acquire(jobs[SIZE], SIZE)).toBeNull();
    const held = await pool.instanceOf(jobs[123]);
    await env.DB.prepare("UPDATE jobs SET status = 'completed' WHERE id = ?1").bind(jobs[123]).run();
    expect(await pool.acquire(jobs[SIZE], SIZE)).toBe(held);
    expect(await pool.instanceOf(jobs[SIZE])).toBe(held);
    expect(await pool.instanceOf(jobs[123])).toBeNull();
  });
});
