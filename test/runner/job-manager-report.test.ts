import { describe, expect, it } from "vitest";
import { createJobManager } from "../../container/src/job-manager.ts";
import type { JobHooks } from "../../container/src/job-hooks.ts";
import type { RunnerJobRequest, RunnerOutcome } from "../../src/runner/runner-protocol.ts";
import { completedOutcome, jobRequest, oneSlotSettings } from "./runner-api.ts";

const settings = oneSlotSettings();
const outcome = completedOutcome;

describe("the runner's job manager", () => {
  it("reports a job's outcome before its clean-up is done, and holds its slot and the drain until it is", async () => {
    let cleanedUp: () => void = () => {};
    const ran: string[] = [];
    const execute = async (req: RunnerJobRequest, _s: unknown, hooks: JobHooks): Promise<RunnerOutcome> => {
      ran.push(req.jobId);
      hooks.reportOutcome?.(outcome);
      await new Promise<void>((r) => {
        cleanedUp = r;
      });
      return outcome;
    };
    const manager = createJobManager(settings, execute);
    try {
      const first = jobRequest({ notifyUrl: null });
      const second = jobRequest({ notifyUrl: null });
      manager.submit(first);
      manager.submit(second);
      await new Promise((r) => setTimeout(r, 20));
      // Reported while the clean-up runs: the coordinator can collect it now.
      expect(manager.status(first.jobId)).toMatchObject({ state: "finished", outcome: { status: "completed" } });
      // Collected and released: still held for the drain, and the one slot is not free yet.
      manager.release(first.jobId);
      expect(manager.heldCount()).toBe(2);
      expect(ran).toEqual([first.jobId]);
      cleanedUp();
      await new Promise((r) => setTimeout(r, 20));
      expect(ran).toEqual([first.jobId, second.jobId]);
      expect(manager.status(second.jobId)).toMatchObject({ state: "finished" });
      cleanedUp();
      await new Promise((r) => setTimeout(r, 20));
      manager.release(second.jobId);
      expect(manager.heldCount()).toBe(0);
    } finally {
      manager.stop();
    }
  });
});
