import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { claimForDispatch } from "../../src/jobs/transitions/claim-for-dispatch.ts";
import { listTasks } from "../../src/jobs/split/task-store.ts";
import { createAccount, insertQueuedJob, mediaUrl } from "./helpers.ts";
import { plannedSplitJob as planned, splitTick } from "./split-fixtures.ts";

/**
 * A split job on a limited balance: it holds a second's charge for each task it runs at
 * once, as an ordinary job holds one for its one container, so a small balance runs fewer at once and
 * the account's other jobs wait for what it holds. A runner double takes every task and reports it
 * running, so one tick shows how many the coordinator started.
 */
const split = { segmentSeconds: 5, maxWorkers: 8 };

const plannedSplitJob = (accountId: string) => planned(accountId, split);

/** One tick with a runner that takes every task; how many tasks run after it. */
async function runningAfterTick(id: string): Promise<number> {
  await splitTick(id);
  return (await listTasks(env.DB, id)).filter((t) => t.status === "running").length;
}

describe("a split job's credits", () => {
  it("runs as many tasks at once as the balance holds a second's charge for, and maxWorkers when it is unlimited", async () => {
    const limited = await createAccount(3);
    expect(await runningAfterTick(await plannedSplitJob(limited.accountId))).toBe(3);
    const unlimited = await createAccount(null);
    expect(await runningAfterTick(await plannedSplitJob(unlimited.accountId))).toBe(split.maxWorkers);
  });

  it("counts what its tasks already ran against the balance, and never stops below one task at once", async () => {
    const { accountId } = await createAccount(6);
    const id = await plannedSplitJob(accountId);
    // Two segments done, 4.2 s between them: 5 seconds' charges spent of 6.
    await env.DB.prepare(
      "UPDATE job_tasks SET status = 'completed', runtime_ms = 2100 WHERE job_id = ?1 AND name IN ('segment-0', 'segment-1')",
    )
      .bind(id)
      .run();
    expect(await runningAfterTick(id)).toBe(1);
    const spent = await plannedSplitJob((await createAccount(1)).accountId);
    await env.DB.prepare(
      "UPDATE job_tasks SET status = 'completed', runtime_ms = 9000 WHERE job_id = ?1 AND name = 'segment-0'",
    )
      .bind(spent)
      .run();
    expect(await runningAfterTick(spent)).toBe(1);
  });

  it("holds the account's other jobs back for what its running tasks hold", async () => {
    const { accountId } = await createAccount(3);
    expect(await runningAfterTick(await plannedSplitJob(accountId))).toBe(3);
    const next = await insertQueuedJob(accountId, {
      binary: "ffprobe",
      args: ["-show_format", "{{m}}"],
      inputs: { m: { type: "url", url: mediaUrl("clip.mp4") } },
    });
    const limits = { maxActive: 10, creditsPerSecond: 1 };
    expect(await claimForDispatch(env.DB, next, new Date().toISOString(), limits)).toBe(false);
    await env.DB.prepare("UPDATE accounts SET credit_balance = 4 WHERE id = ?1").bind(accountId).run();
    expect(await claimForDispatch(env.DB, next, new Date().toISOString(), limits)).toBe(true);
  });
});
