import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createJobManager } from "../../container/src/job-manager.ts";
import type { JobHooks } from "../../container/src/job-hooks.ts";
import type { RunnerJobRequest, RunnerOutcome } from "../../src/runner/runner-protocol.ts";
import { completedOutcome, jobRequest, oneSlotSettings, runnerApi } from "./runner-api.ts";
import { useRunnerHarness } from "./runner-harness.ts";

/* A status call held until the job leaves the line or finishes (RunnerFollow), and the notifications it replaces. */

const settings = oneSlotSettings();
const outcome = completedOutcome;

/** Notifications received, by job. */
let notified: string[] = [];
let notifyUrl = "";
const receiver = http.createServer((req, res) => {
  notified.push(req.url ?? "");
  res.writeHead(204).end();
});
beforeAll(async () => {
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  notifyUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(() => receiver.close());

/** A job manager whose jobs move when the test says: `step()` starts the next move of the job under way. */
function steppedManager() {
  const moves: (() => void)[] = [];
  const execute = async (_req: RunnerJobRequest, _s: unknown, hooks: JobHooks): Promise<RunnerOutcome> => {
    // Each move waits for the test, or for the job to be stopped (a cancel, a lease that ran out).
    const move = () =>
      new Promise<void>((r) => {
        moves.push(r);
        if (hooks.canceled.aborted) r();
        hooks.canceled.addEventListener("abort", () => r(), { once: true });
      });
    await move();
    hooks.setState("running");
    await move();
    return outcome;
  };
  const manager = createJobManager(settings, execute);
  const step = async () => {
    moves.shift()?.();
    await new Promise((r) => setTimeout(r, 20));
  };
  return { manager, step };
}
const settle = () => new Promise((r) => setTimeout(r, 20));

describe("a followed status call on the runner", () => {
  it("is held until the job leaves the line, then until it finishes; the changes it answered are not also notified", async () => {
    notified = [];
    const { manager, step } = steppedManager();
    try {
      const req = jobRequest({ notifyUrl: `${notifyUrl}/a` });
      manager.submit(req);
      await settle();
      const started = manager.waitFor(req.jobId, "started", 5_000, new AbortController().signal);
      let answered = false;
      void started.then(() => (answered = true));
      await settle();
      expect(answered).toBe(false);
      await step();
      expect((await started)?.state).toBe("running");
      const finished = manager.waitFor(req.jobId, "finished", 5_000, new AbortController().signal);
      await step();
      expect((await finished)?.outcome?.status).toBe("completed");
      // The coordinator read it and is done with the job: no notification follows.
      manager.release(req.jobId);
      await new Promise((r) => setTimeout(r, 2_000));
      expect(notified).toEqual([]);
    } finally {
      manager.stop();
    }
  });

  it("answers at once when the job is already there, on time otherwise, and frees the call of a caller that left", async () => {
    notified = [];
    const { manager, step } = steppedManager();
    try {
      const req = jobRequest({ notifyUrl: `${notifyUrl}/b` });
      manager.submit(req);
      await settle();
      const t0 = Date.now();
      expect((await manager.waitFor(req.jobId, "finished", 100, new AbortController().signal))?.state).not.toBe(
        "finished",
      );
      expect(Date.now() - t0).toBeGreaterThanOrEqual(90);
      const gone = new AbortController();
      const left = manager.waitFor(req.jobId, "finished", 60_000, gone.signal);
      gone.abort();
      expect((await left)?.outcome).toBeNull();
      // Nobody listens now: the job's start is notified as before.
      await step();
      for (let i = 0; i < 100 && notified.length === 0; i++) await settle();
      expect(notified).toEqual(["/b"]);
      expect((await manager.waitFor(req.jobId, "started", 60_000, new AbortController().signal))?.state).toBe(
        "running",
      );
      expect(await manager.waitFor(crypto.randomUUID(), "started", 60_000, new AbortController().signal)).toBeNull();
      // A released job answers its followers at once.
      const held = manager.waitFor(req.jobId, "finished", 60_000, new AbortController().signal);
      manager.release(req.jobId);
      expect(await held).not.toBeNull();
    } finally {
      manager.stop();
    }
  });

  it("holds one call a job: a newer one answers the one before it with the status of now", async () => {
    const { manager } = steppedManager();
    try {
      const req = jobRequest({ notifyUrl: null });
      manager.submit(req);
      await settle();
      const first = manager.waitFor(req.jobId, "finished", 60_000, new AbortController().signal);
      const t0 = Date.now();
      const second = manager.waitFor(req.jobId, "finished", 60_000, new AbortController().signal);
      expect((await first)?.outcome).toBeNull();
      expect(Date.now() - t0).toBeLessThan(1_000);
      manager.release(req.jobId);
      expect(await second).not.toBeNull();
    } finally {
      manager.stop();
    }
  });

  it("sends the notification anyway when the coordinator does not ask again after a held answer (nobody read it)", async () => {
    notified = [];
    const { manager, step } = steppedManager();
    try {
      const req = jobRequest({ notifyUrl: `${notifyUrl}/c` });
      manager.submit(req);
      await settle();
      const started = manager.waitFor(req.jobId, "started", 60_000, new AbortController().signal);
      await step();
      expect((await started)?.state).toBe("running");
      expect(notified).toEqual([]);
      for (let i = 0; i < 150 && notified.length === 0; i++) await settle();
      expect(notified).toEqual(["/c"]);
    } finally {
      manager.stop();
    }
  });

  it("counts a held call as its coordinator asking: the job's lease does not run out under it", async () => {
    const { manager } = steppedManager();
    try {
      const req = jobRequest({ notifyUrl: null, leaseMs: 1_500 });
      manager.submit(req);
      await settle();
      const held = await manager.waitFor(req.jobId, "finished", 4_000, new AbortController().signal);
      expect(held?.outcome).toBeNull();
      expect(manager.status(req.jobId)?.outcome).toBeNull();
    } finally {
      manager.stop();
    }
  }, 10_000);
});

describe("the runner's status route with until and waitMs", () => {
  const { h } = useRunnerHarness({ RUNNER_CONCURRENCY: "1" });
  it("refuses a malformed or too long wait, and answers an unknown job's at once", async () => {
    const api = runnerApi(h.runner);
    const id = crypto.randomUUID();
    for (const query of [
      "until=started",
      "waitMs=10",
      "until=soon&waitMs=10",
      "until=started&waitMs=-1",
      "until=finished&waitMs=15001",
      "until=started&waitMs=1e3",
      "until=started&until=finished&waitMs=10",
      "until=started&waitMs=10&waitMs=99999",
    ])
      expect((await api.fetch(`/jobs/${id}?${query}`)).status, query).toBe(400);
    const t0 = Date.now();
    expect((await api.fetch(`/jobs/${id}?until=finished&waitMs=15000`)).status).toBe(404);
    expect(Date.now() - t0).toBeLessThan(1_000);
  });
});
