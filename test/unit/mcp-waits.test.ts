import { describe, expect, it } from "vitest";
import { followed } from "../../src/mcp/followed-stream.ts";
import { MCP_MAX_WAIT_SECONDS, waitForJob, waitSecondsOf } from "../../src/mcp/wait-for-job.ts";

/** An API that answers a running job, holding each read as long as `?wait=` asks (in fake time). */
function runningJob(clock: { now: number }, reads: string[]) {
  return async (_method: string, path: string) => {
    reads.push(path);
    await new Promise((r) => setTimeout(r, 5));
    clock.now += Number(new URL(path, "http://x").searchParams.get("wait")) * 1000;
    return { status: 200, body: { id: "j", status: "running", progress: { percent: reads.length, speed: 1 } } };
  };
}

describe("an MCP tool's wait for a job", () => {
  it("takes only a whole number of seconds up to the most, and is bounded by it", async () => {
    expect(waitSecondsOf(undefined)).toEqual({ seconds: MCP_MAX_WAIT_SECONDS });
    for (const bad of [Number.POSITIVE_INFINITY, 1e9, MCP_MAX_WAIT_SECONDS + 1, -1, 2.5, "10", null]) {
      expect(waitSecondsOf(bad), String(bad)).toMatchObject({ refused: { ok: false, code: "INVALID_REQUEST" } });
    }
    const clock = { now: 0 };
    const reads: string[] = [];
    const progress: number[] = [];
    const got = await waitForJob(
      "j",
      MCP_MAX_WAIT_SECONDS,
      {
        api: runningJob(clock, reads),
        progress: async (p) => void progress.push(p.progress),
        signal: new AbortController().signal,
      },
      () => clock.now,
    );
    expect(got).toMatchObject({ ok: true, value: { stillRunning: true } });
    expect(clock.now).toBeLessThanOrEqual(MCP_MAX_WAIT_SECONDS * 1000);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
  });

  it("stops waiting when the client goes away", async () => {
    const clock = { now: 0 };
    const reads: string[] = [];
    const gone = new AbortController();
    const source = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}) });
    const answer = followed(source, gone);
    const waiting = waitForJob(
      "j",
      MCP_MAX_WAIT_SECONDS,
      { api: runningJob(clock, reads), progress: async () => {}, signal: gone.signal },
      () => clock.now,
    );
    while (reads.length < 2) await new Promise((r) => setTimeout(r, 1));
    await answer.cancel("client disconnected");
    expect(gone.signal.aborted).toBe(true);
    expect(await waiting).toMatchObject({ ok: true, value: { stillRunning: true } });
    // The read under way when the client left is the last: not the 23 a whole wait makes.
    expect(reads.length).toBe(2);
  });
});
