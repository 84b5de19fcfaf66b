import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { writeEnding } from "../../src/jobs/transitions/write-ending.ts";
import { createAccount, insertQueuedJob, jobStatus } from "./helpers.ts";

describe("a job's ending, written", () => {
  it("lets a late or duplicate finish change nothing and charges once", async () => {
    const limited = await createAccount(50);
    const id = await insertQueuedJob(limited.accountId);
    await env.DB.prepare("UPDATE jobs SET status = 'running' WHERE id = ?1").bind(id).run();
    const finish = {
      status: "completed" as const,
      exitCode: 0,
      runtimeSeconds: 4,
      creditsCharged: 4,
      errorCode: null,
      errorMessage: null,
      stdout: "",
      stderrTail: "",
    };
    expect((await writeEnding(env.DB, id, finish, new Date().toISOString())).moved).toBe(true);
    expect(
      (await writeEnding(env.DB, id, { ...finish, status: "failed", creditsCharged: 9 }, new Date().toISOString()))
        .moved,
    ).toBe(false);
    expect((await writeEnding(env.DB, id, finish, new Date().toISOString())).moved).toBe(false);
    expect(await jobStatus(id)).toBe("completed");
    const b = await env.DB.prepare("SELECT credit_balance AS b FROM accounts WHERE id = ?1")
      .bind(limited.accountId)
      .first<{ b: number }>();
    expect(b!.b).toBe(46);
  });
});
