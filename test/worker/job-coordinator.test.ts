import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import {
  coordinator,
  createAccount,
  insertQueuedJob,
  isTerminalJob,
  jobStatus,
  probeSpec,
  waitForJob,
} from "./helpers.ts";

let account: { accountId: string; key: string };
beforeAll(async () => {
  account = await createAccount();
});

describe("a job's coordinator", () => {
  it("keeps ticking a job from its alarm: start arms it once, and re-arms an alarm that was lost", async () => {
    const id = await insertQueuedJob(account.accountId, probeSpec("clip.mp4"));
    const stub = coordinator(id);
    await runInDurableObject(stub, async (c, state) => {
      expect(await c.start(id)).toBe("ticking");
      const armed = await state.storage.getAlarm();
      expect(armed).not.toBeNull();
      expect(await c.start(id)).toBe("ticking");
      expect(await state.storage.getAlarm()).toBe(armed);
      await state.storage.deleteAlarm();
      expect(await c.start(id)).toBe("ticking");
      expect(await state.storage.getAlarm()).not.toBeNull();
    });
    while (await runDurableObjectAlarm(stub)) {
      if (isTerminalJob({ status: await jobStatus(id) })) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await waitForJob(account.key, id, isTerminalJob)).status).toBe("completed");
  });
});
