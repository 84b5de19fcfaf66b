import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createServices, type Services } from "../../src/services.ts";
import { coordinator, createAccount, insertQueuedJob, jobStatus, probeSpec } from "./helpers.ts";

let account: { accountId: string; key: string };
beforeAll(async () => {
  account = await createAccount();
});

describe("a coordinator following its job on the runner (src/jobs/lifecycle/follow-runner.ts)", () => {
  it("ends a job as soon as it finishes with no notification and no poll: the held status call answers", async () => {
    const id = await insertQueuedJob(account.accountId, probeSpec("clip.mp4"));
    const stub = coordinator(id);
    await runInDurableObject(stub, (c) => {
      // This project's runners are given no notification URL; and no alarm-paced poll comes for a minute.
      (c as unknown as { newServices: () => Services }).newServices = () => {
        const real = createServices(env);
        return { ...real, config: { ...real.config, runnerPollIntervalMs: 60_000 } };
      };
    });
    const t0 = Date.now();
    await runInDurableObject(stub, (c) => c.start(id));
    for (let i = 0; i < 150 && (await jobStatus(id)) !== "completed"; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await jobStatus(id)).toBe("completed");
    expect(Date.now() - t0).toBeLessThan(15_000);
  });
});
