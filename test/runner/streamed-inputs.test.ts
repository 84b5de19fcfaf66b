import { statSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { jobRequest } from "./runner-api.ts";
import { useRunnerHarness } from "./runner-harness.ts";

/**
 * Inputs read by range while the job runs (container/src/input-server.ts), through the sandbox's
 * relay, from a loopback origin that serves ranges as web servers and object stores do, or
 * misbehaves on purpose (test/support/static-server.ts).
 */
describe("streamed inputs (real sandboxed ffmpeg, ranges from a loopback origin)", () => {
  const { h, fx, output } = useRunnerHarness({ RUNNER_ORIGIN_IDLE_SECONDS: "2" });
  const at = (path: string) => ({ name: "in", url: `${h.media.url}${path}`, fileName: "long.mp4", trusted: false });
  const longBytes = statSync(fx.long).size; // 120 s, index (moov) at the end
  const run = async (over: Parameters<typeof jobRequest>[0]) => {
    const req = jobRequest({ timeoutMs: 60_000, ...over });
    await h.api.submit(req);
    return (await h.api.waitFor(req.jobId, (s) => s.state === "finished", 60_000)).outcome!;
  };

  // Against bare ffmpeg on the same URL, bytes are compared in bench/big-remote.ts, on a link of capped speed:
  // on an unlimited loopback the windows asked ahead arrive at once, which says nothing of a real origin.
  it("probes a file whose index is at its end by reading a small part of it", async () => {
    const args = ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", "{{in}}"];
    const before = h.media.sentBytes();
    const done = await run({ binary: "ffprobe", args, inputs: [at("/long.mp4")] });
    expect(done, done.errorMessage ?? "").toMatchObject({
      status: "completed",
      stdout: expect.stringMatching(/^120\.0/),
    });
    const origin = h.media.sentBytes() - before;
    expect(origin).toBeLessThan(longBytes / 8);
    // What the runner took from the origin: no less than it gave ffmpeg, no more than the origin sent.
    const reads = done.inputReads!.in;
    expect(reads.copied).toBe(false);
    expect(reads.originBytes).toBeGreaterThanOrEqual(reads.bytesRead);
    expect(reads.originBytes).toBeLessThanOrEqual(origin);
  });

  it("seeks into the middle for one frame (-ss before -i) without reading the rest, and shows the paths ffmpeg was given as /job paths", async () => {
    const before = h.media.sentBytes();
    const done = await run({
      args: ["-ss", "60", "-i", "{{in}}", "-frames:v", "1", "{{out}}"],
      inputs: [at("/long.mp4")],
      outputs: [output("out", "frame.png", "image/png")],
    });
    expect(done, done.errorMessage ?? "").toMatchObject({
      status: "completed",
      outputs: [{ name: "out", metadata: { streams: [{ codec: "png" }] } }],
    });
    expect(h.media.sentBytes() - before).toBeLessThan(longBytes / 3);
    expect(done.stderrTail).not.toContain("127.0.0.1");
    // Three reads at least: the start, the index at the end, the frame in the middle.
    expect(h.media.requests.filter((r) => r.startsWith("/long.mp4 bytes=")).length).toBeGreaterThanOrEqual(3);
  });

  it("reads one input in two steps of a job", async () => {
    const done = await run({
      steps: [
        { binary: "ffprobe", args: ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", "{{in}}"] },
        { binary: "ffmpeg", args: ["-ss", "100", "-i", "{{in}}", "-t", "2", "-c", "copy", "{{out}}"] },
      ],
      inputs: [at("/long.mp4")],
      outputs: [output("out", "cut.mp4", "video/mp4")],
    });
    expect(done, done.errorMessage ?? "").toMatchObject({ status: "completed" });
    expect(done.outputs[0].metadata).toMatchObject({ durationSeconds: expect.closeTo(2, 0) });
  });

  it("copies an input whose origin does not serve ranges, and still seeks in it", async () => {
    const done = await run({
      args: ["-ss", "2", "-i", "{{in}}", "-frames:v", "1", "{{out}}"],
      inputs: [{ ...at("/noranges/clip.mp4"), fileName: "clip.mp4" }],
      outputs: [output("out", "f.png", "image/png")],
    });
    expect(done, done.errorMessage ?? "").toMatchObject({ status: "completed" });
    expect(done.inputReads!.in).toMatchObject({ copied: true, originBytes: statSync(fx.clip).size });
  });

  it("fails INPUT_CHANGED when the origin answers a later range for a different file, and stores nothing", async () => {
    const done = await run({
      args: ["-ss", "60", "-i", "{{in}}", "-frames:v", "1", "{{out}}"],
      inputs: [at("/changes-after/1/long.mp4")],
      outputs: [output("out", "frame.png", "image/png")],
    });
    expect(done).toMatchObject({ status: "failed", errorCode: "INPUT_CHANGED", outputs: [] });
    expect(done.errorMessage).toMatch(/^Input "in" changed while the job read it \(its ETag went from "v1" to "v2"\)/);
  });

  it("names the step in which a multi-step job's input changed", async () => {
    const done = await run({
      steps: [
        { binary: "ffprobe", args: ["-v", "error", "-show_format", "{{in}}"] },
        { binary: "ffmpeg", args: ["-i", "{{in}}", "-t", "1", "-f", "null", "-"] },
      ],
      // A path of its own: the origin counts requests per path, and an earlier test used /changes-after/1/.
      inputs: [at("/changes-after/2/long.mp4")],
    });
    expect(done).toMatchObject({ status: "failed", errorCode: "INPUT_CHANGED", failedStep: 0 });
    expect(done.errorMessage).toMatch(/^steps\[0\]: Input "in" changed while the job read it/);
  });

  it("fails an origin that stalls mid-body within its idle window, with a message naming the input", async () => {
    const started = Date.now();
    const done = await run({ args: ["-i", "{{in}}", "-f", "null", "-"], inputs: [at("/stall-after/200000/long.mp4")] });
    expect(done).toMatchObject({ status: "failed", errorCode: "INPUT_FETCH_FAILED" });
    expect(done.errorMessage).toBe('Input "in" stalled: its origin sent nothing for 2 s');
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it("asks a read again where a connection reset broke it, and completes as if nothing happened", async () => {
    const args = ["-ss", "60", "-i", "{{in}}", "-frames:v", "1", "{{out}}"];
    const outputs = [output("out", "frame.png", "image/png")];
    const done = await run({ args, inputs: [at("/reset-at/2/long.mp4")], outputs });
    expect(done, done.errorMessage ?? "").toMatchObject({ status: "completed" });
    // The second answer was cut after 4 KiB: the range was asked again from where it broke (what of the 4 KiB
    // had reached the reader before the reset, to the byte).
    const asked = h.media.requests.filter((r) => r.startsWith("/reset-at/2/long.mp4 bytes="));
    const starts = asked.map((r) => Number(/bytes=(\d+)-/.exec(r)![1]));
    const again = starts.slice(2).filter((s) => s >= starts[1] && s <= starts[1] + 4096);
    expect(again.length, JSON.stringify(starts)).toBeGreaterThanOrEqual(1);
  });

  it("asks a read again whose connection was reset before any answer (a dropped keep-alive connection)", async () => {
    const done = await run({
      args: ["-ss", "60", "-i", "{{in}}", "-frames:v", "1", "{{out}}"],
      inputs: [at("/drop-at/2/long.mp4")],
      outputs: [output("out", "frame.png", "image/png")],
    });
    expect(done, done.errorMessage ?? "").toMatchObject({ status: "completed" });
    expect(h.media.requests.filter((r) => r.startsWith("/drop-at/2/long.mp4")).length).toBeGreaterThanOrEqual(3);
  });

  it("fails INPUT_FETCH_FAILED, naming the input, when the network breaks every read: a few retries, no more", async () => {
    const done = await run({
      args: ["-ss", "60", "-i", "{{in}}", "-frames:v", "1", "{{out}}"],
      inputs: [at("/reset-after/1/long.mp4")],
      outputs: [output("out", "frame.png", "image/png")],
    });
    expect(done).toMatchObject({ status: "failed", errorCode: "INPUT_FETCH_FAILED" });
    expect(done.errorMessage).toMatch(/Input "in" could not be fetched/);
    // The first answer, then each read asked again at most 3 times.
    const asked = h.media.requests.filter((r) => r.startsWith("/reset-after/1/long.mp4")).length;
    expect(asked).toBeGreaterThan(1);
    expect(asked).toBeLessThanOrEqual(1 + 4 * 4);
  });

  it("refuses a redirect to a private address on a later range, as on the first", async () => {
    const done = await run({
      args: ["-ss", "60", "-i", "{{in}}", "-frames:v", "1", "{{out}}"],
      inputs: [at("/redirect-after/1/long.mp4?to=http://169.254.169.254/latest/meta-data")],
      outputs: [output("out", "frame.png", "image/png")],
    });
    expect(done).toMatchObject({ status: "failed", errorCode: "INPUT_FETCH_FAILED", outputs: [] });
    expect(done.errorMessage).toBe('Input "in" could not be fetched: the address is not publicly routable');
  });

  it("fails at once, before running anything, on an input that answers an HTTP error", async () => {
    const done = await run({ args: ["-i", "{{in}}", "-f", "null", "-"], inputs: [at("/status/403")] });
    expect(done).toMatchObject({
      status: "failed",
      errorCode: "INPUT_FETCH_FAILED",
      runtimeMs: 0,
      errorMessage: 'Input "in" could not be fetched: HTTP 403',
    });
  });
});

describe("the job's cap on bytes read from origins", () => {
  const { h } = useRunnerHarness({ RUNNER_MAX_READ_BYTES: String(4 * 1024 * 1024) });

  it("stops a job that reads more than RUNNER_MAX_READ_BYTES with LIMIT_EXCEEDED", async () => {
    const req = jobRequest({
      timeoutMs: 60_000,
      args: ["-i", "{{in}}", "-f", "null", "-"],
      inputs: [{ name: "in", url: `${h.media.url}/long.mp4`, fileName: "long.mp4", trusted: false }],
    });
    await h.api.submit(req);
    const done = (await h.api.waitFor(req.jobId, (s) => s.state === "finished", 60_000)).outcome!;
    expect(done).toMatchObject({
      status: "failed",
      errorCode: "LIMIT_EXCEEDED",
      errorMessage: "The job read more than 4194304 bytes from its inputs' origins and was stopped",
    });
  });
});
