import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { getJob } from "../../src/jobs/store/job-store.ts";
import { listTasks } from "../../src/jobs/split/task-store.ts";
import { createAccount } from "./helpers.ts";
import { plannedSplitJob, splitTick } from "./split-fixtures.ts";

/**
 * A split job at its time limit (found by an attack pass): tasks were handed to runners with no time
 * left (the runner refused them, which counted as lost attempts), and the job failed "ran past its 0 s
 * limit", the time its last task was given, not the job's.
 */
let accountId: string;
beforeAll(async () => {
  ({ accountId } = await createAccount());
});
const parallel = { segmentSeconds: 5, maxWorkers: 4 };

describe("a split job at its deadline", () => {
  it("starts no task with less than two seconds of its time left", async () => {
    const startedAt = new Date(Date.now() - 59_000).toISOString();
    const id = await plannedSplitJob(accountId, parallel, { timeoutSeconds: 60, startedAt });
    const { step, started } = await splitTick(id);
    expect(step).toHaveProperty("state");
    expect(started).toEqual([]);
    expect((await listTasks(env.DB, id)).every((t) => t.status === "pending" && t.attempts === 0)).toBe(true);
  });

  it("fails naming the job's own limit when a task runs out of the time it was given", async () => {
    const id = await plannedSplitJob(accountId, parallel, { timeoutSeconds: 60 });
    const { started } = await splitTick(id);
    expect(started).toHaveLength(parallel.maxWorkers);
    const now = new Date().toISOString();
    const timedOut = (jobId: string) => ({
      jobId,
      state: "finished",
      startedAt: now,
      progress: null,
      outcome: {
        status: "failed",
        exitCode: null,
        runtimeMs: 3000,
        errorCode: "JOB_TIMEOUT",
        errorMessage: "The job ran past its 0 s limit and was stopped",
        stdout: "",
        stderrTail: "",
        outputs: [],
        timings: { fetchMs: 0, runMs: 3000, storeMs: 0 },
        finishedAt: now,
      },
    });
    expect((await splitTick(id, { answer: timedOut })).step).toEqual({ done: true });
    const job = (await getJob(env.DB, id))!;
    expect(job).toMatchObject({ status: "failed", error_code: "JOB_TIMEOUT" });
    expect(job.error_message).toBe("The job ran past its 60 s limit and was stopped");
  });
});
