import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createServices, type Services } from "../../src/services.ts";
import { coordinator, createAccount, insertQueuedJob, probeSpec, recordingRunner } from "./helpers.ts";

/* The safety-net alarm of a watching coordinator, against the runner's own notifications. */

const POLL_MS = 10_000;

let account: { accountId: string; key: string };
beforeAll(async () => {
  account = await createAccount();
});

describe("a watching coordinator's alarm", () => {
  it("waits half a poll interval longer after a notification, and keeps the usual pace when nothing was heard", async () => {
    const id = await insertQueuedJob(account.accountId, probeSpec("clip.mp4"));
    // A runner that has the job running, whatever it is asked.
    const running = () =>
      Response.json({
        jobId: id,
        state: "running",
        startedAt: new Date().toISOString(),
        progress: null,
        outcome: null,
      });
    const { calls, client } = recordingRunner(running);
    const stub = coordinator(id);
    await runInDurableObject(stub, (c) => {
      (c as unknown as { newServices: () => Services }).newServices = () => {
        const real = createServices(env);
        return { ...real, runner: client, config: { ...real.config, runnerPollIntervalMs: POLL_MS } };
      };
    });
    await runInDurableObject(stub, (c) => c.start(id));
    const armedIn = () =>
      runInDurableObject(stub, async (_c, state) => ((await state.storage.getAlarm()) ?? 0) - Date.now());
    const asked = () => calls.filter((c) => c.startsWith("GET")).length;
    // Handed over, then watched: the first watch tick's alarm is the plain interval.
    for (let i = 0; i < 100 && asked() === 0; i++) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 200));
    const plain = await armedIn();
    expect(plain).toBeGreaterThan(POLL_MS * 0.8);
    expect(plain).toBeLessThanOrEqual(POLL_MS);

    const before = asked();
    await stub.notify();
    for (let i = 0; i < 100 && asked() === before; i++) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 200));
    const afterNotice = await armedIn();
    expect(afterNotice).toBeGreaterThan(POLL_MS * 1.3);
    expect(afterNotice).toBeLessThanOrEqual(POLL_MS * 1.5);
    await runInDurableObject(stub, (_c, state) => state.storage.deleteAll());
  });
});
