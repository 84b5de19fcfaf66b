import { describe, expect, it } from "vitest";
import { followRunner } from "../../src/jobs/lifecycle/follow-runner.ts";
import type { RunnerFollow, RunnerJobStatus } from "../../src/runner/runner-protocol.ts";

const status = (over: Partial<RunnerJobStatus>): RunnerJobStatus => ({
  jobId: "j",
  state: "waiting",
  startedAt: null,
  progress: null,
  outcome: null,
  ...over,
});

/** A runner client that answers `answer` after `heldMs` of a clock the test moves. */
function runner(answer: RunnerJobStatus | null | Error, heldMs: number, clock: { ms: number }, follows = true) {
  const asked: RunnerFollow[] = [];
  return {
    asked,
    client: {
      ...(follows ? { follows: true as const } : {}),
      status: async (_id: string, follow?: RunnerFollow) => {
        asked.push(follow!);
        clock.ms += heldMs;
        if (answer instanceof Error) throw answer;
        return answer;
      },
    },
  };
}

describe("following a job on its runner", () => {
  it("ticks with the answer once the job has left the line, or has finished", async () => {
    const clock = { ms: 0 };
    const running = status({ state: "running" });
    const r = runner(running, 30, clock);
    expect(await followRunner(r.client, "j", { until: "started", waitMs: 15_000 }, () => clock.ms)).toBe(running);
    expect(r.asked).toEqual([{ until: "started", waitMs: 15_000 }]);
    expect(
      await followRunner(runner(running, 30, clock).client, "j", { until: "finished", waitMs: 15_000 }, () => clock.ms),
    ).toBe(null);
  });

  it("follows again after a wait that ran out, and stops on a runner that answers at once without holding", async () => {
    const clock = { ms: 0 };
    const waiting = status({});
    expect(
      await followRunner(
        runner(waiting, 15_000, clock).client,
        "j",
        { until: "started", waitMs: 15_000 },
        () => clock.ms,
      ),
    ).toBe("again");
    // An older runner ignores the query: following it again at once would spin.
    expect(
      await followRunner(runner(waiting, 3, clock).client, "j", { until: "started", waitMs: 15_000 }, () => clock.ms),
    ).toBe(null);
  });

  it("stops where there is nothing to follow: an unknown job, a failed call, a double that cannot hold one", async () => {
    const clock = { ms: 0 };
    const until = { until: "finished" as const, waitMs: 1000 };
    expect(await followRunner(runner(null, 1000, clock).client, "j", until, () => clock.ms)).toBe(null);
    expect(await followRunner(runner(new Error("gone"), 1000, clock).client, "j", until, () => clock.ms)).toBe(null);
    const double = runner(status({ state: "finished" }), 0, clock, false);
    expect(await followRunner(double.client, "j", until, () => clock.ms)).toBe(null);
    expect(double.asked).toEqual([]);
  });
});
