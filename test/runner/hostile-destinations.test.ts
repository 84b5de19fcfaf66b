import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunnerJobRequest } from "../../src/runner/runner-protocol.ts";
import { LATE_ANSWER_MS, startHostileDestination } from "./hostile-destination.ts";
import { jobRequest } from "./runner-api.ts";
import { useRunnerHarness } from "./runner-harness.ts";

/**
 * A destination is the client's own storage, so the client decides how it behaves: it must not hold
 * a runner slot past the job's time limit, nor for long at all while it sends or says nothing. The
 * runner's limits are short here (3 s idle, 1 MiB/s over 1 s windows; on loopback the kernel takes a
 * slow reader's bytes in bursts seconds apart, which a shorter idle limit would catch first); production's are in settings.ts.
 */
const { h } = useRunnerHarness({
  RUNNER_CONCURRENCY: "4",
  RUNNER_DESTINATION_IDLE_SECONDS: "3",
  RUNNER_DESTINATION_MIN_KIB_PER_SECOND: "1024",
  RUNNER_DESTINATION_WINDOW_SECONDS: "1",
});
let dest: Awaited<ReturnType<typeof startHostileDestination>>;
beforeAll(async () => {
  dest = await startHostileDestination();
});
afterAll(() => dest?.close());

/** A one-second tone (about 90 KB), or two minutes of stereo (about 21 MB), sent to `path` on the hostile destination. */
function toneTo(path: string, over: Partial<RunnerJobRequest> = {}, seconds = 1, parts = false): RunnerJobRequest {
  const url = `${dest.url}${path}`;
  const destination = parts
    ? {
        headers: {},
        parts: { urls: [`${url}?partNumber=1`], partSizeBytes: 64 * 1024 * 1024, completeUrl: `${url}?uploadId=1` },
      }
    : { headers: {} };
  return jobRequest({
    args: ["-filter_complex", `sine=d=${seconds}`, "-ac", "2", "{{out}}"],
    outputs: [{ name: "out", fileName: "tone.wav", contentType: "audio/wav", uploadUrl: url, destination }],
    ...over,
  });
}

async function run(req: RunnerJobRequest) {
  const startedAt = Date.now();
  await h.api.submit(req);
  const outcome = (await h.api.waitFor(req.jobId, (s) => s.state === "finished", 20_000)).outcome!;
  return { outcome, tookMs: Date.now() - startedAt };
}

describe("a hostile destination cannot hold a runner slot", () => {
  it("one that takes the body and never answers fails the job once it has been silent for the idle limit", async () => {
    const { outcome, tookMs } = await run(toneTo("/silent/tone.wav"));
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ status: "failed", errorCode: "OUTPUT_UPLOAD_FAILED" });
    expect(outcome.errorMessage).toMatch(
      /could not be sent to its destination: 127\.0\.0\.1:\d+: it took and answered nothing for 3 s/,
    );
    expect(tookMs).toBeLessThan(8_000);
  });

  it("one that trickles its answer's headers a byte at a time fails the same way (headers are no progress until they end)", async () => {
    const { outcome, tookMs } = await run(toneTo("/trickle-headers/tone.wav"));
    expect(outcome).toMatchObject({ status: "failed", errorCode: "OUTPUT_UPLOAD_FAILED" });
    expect(outcome.errorMessage).toMatch(/answered nothing for 3 s/);
    expect(tookMs).toBeLessThan(8_000);
  });

  it("one that answers 200 and trickles its body is done at its headers: a PUT's status and ETag say all, the body is not waited for", async () => {
    const { outcome, tookMs } = await run(toneTo("/trickle-answer/tone.wav"));
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ status: "completed" });
    expect(outcome.outputs[0].delivered?.etag).toBe('"trickled"');
    expect(tookMs).toBeLessThan(8_000);
  });

  it("one that takes the body slower than the minimum throughput fails the job after a window", async () => {
    const { outcome, tookMs } = await run(toneTo("/slow-reader/tone.wav", {}, 120));
    expect(outcome, JSON.stringify(outcome.errorMessage)).toMatchObject({
      status: "failed",
      errorCode: "OUTPUT_UPLOAD_FAILED",
    });
    expect(outcome.errorMessage).toMatch(/took the upload slower than 1024 KiB\/s over 1 s/);
    expect(tookMs).toBeLessThan(12_000);
  });

  it("a redirect is not followed, and its trickled body does not hold the job", async () => {
    const before = dest.requests.length;
    const { outcome, tookMs } = await run(toneTo("/redirect/tone.wav"));
    expect(outcome).toMatchObject({ status: "failed", errorCode: "OUTPUT_UPLOAD_FAILED" });
    expect(outcome.errorMessage).toMatch(/answered HTTP 307/);
    expect(dest.requests.slice(before)).toEqual(["PUT /redirect/tone.wav"]);
    expect(tookMs).toBeLessThan(8_000);
  });

  it("a multipart completion answered 200 with an error fails the job at the error's end, though the connection stays open", async () => {
    const { outcome, tookMs } = await run(toneTo("/multipart-error/tone.wav", {}, 1, true));
    expect(outcome).toMatchObject({ status: "failed", errorCode: "OUTPUT_UPLOAD_FAILED" });
    expect(outcome.errorMessage).toMatch(/answered the completion with an error: .*<Code>InternalError<\/Code>/);
    expect(tookMs).toBeLessThan(8_000);
  });

  it("a multipart completion answered 200 without a result is a refusal, not a delivered output", async () => {
    const { outcome } = await run(toneTo("/multipart-noresult/tone.wav", {}, 1, true));
    expect(outcome).toMatchObject({ status: "failed", errorCode: "OUTPUT_UPLOAD_FAILED" });
    expect(outcome.errorMessage).toMatch(/answered the completion without a result/);
  });

  it("a completion kept open with spaces (progress, but never an end) is stopped by the job's own time limit", async () => {
    const { outcome, tookMs } = await run(toneTo("/multipart-keepalive/tone.wav", { timeoutMs: 3_000 }, 1, true));
    expect(outcome).toMatchObject({ status: "failed", errorCode: "OUTPUT_UPLOAD_FAILED" });
    expect(outcome.errorMessage).toMatch(/had not finished when the job's time limit ran out/);
    expect(tookMs).toBeLessThan(6_000);
  });

  it("the wall time of a send to the client's storage is billed as run time", async () => {
    const { outcome } = await run(toneTo("/late/tone.wav"));
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ status: "completed" });
    expect(outcome.runtimeMs - outcome.timings.runMs).toBeGreaterThanOrEqual(LATE_ANSWER_MS - 100);
  });

  it("leaves no connection open to the destination once the jobs have ended (but for an idle keep-alive one, for its 5 s)", async () => {
    for (let i = 0; dest.heldByRunner().length > 0 && i < 140; i++) await new Promise((r) => setTimeout(r, 50));
    expect(dest.heldByRunner()).toEqual([]);
  });
});
