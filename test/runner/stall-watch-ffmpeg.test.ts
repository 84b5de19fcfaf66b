import { describe, expect, it } from "vitest";
import { jobRequest } from "./runner-api.ts";
import { useRunnerHarness } from "./runner-harness.ts";

// Short windows so a stall shows in seconds; the defaults are 60 s idle and 600 s busy.
const { h, input } = useRunnerHarness({ RUNNER_STALL_IDLE_SECONDS: "2", RUNNER_STALL_BUSY_SECONDS: "5" });

describe("stall watch (real ffmpeg, sandboxed)", () => {
  it("stops an ffmpeg that waits idle without output: -re on an input whose timestamps jump ten minutes ahead", async () => {
    const req = jobRequest({
      timeoutMs: 60_000,
      args: ["-re", "-i", "{{in}}", "-f", "null", "-"],
      inputs: [input("in", "gap.mkv")],
    });
    const started = Date.now();
    await h.api.submit(req);
    const done = await h.api.waitFor(req.jobId, (s) => s.state === "finished", 30_000);
    expect(done.outcome).toMatchObject({ status: "failed", errorCode: "JOB_STALLED" });
    expect(done.outcome!.errorMessage).toMatch(/^ffmpeg made no progress for [2-4] s \(no new output and no work/);
    // One second of frames plays out, then the two-second idle window, then a sample's delay.
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it("stops an ffmpeg that keeps working but writes nothing, after the longer busy window", async () => {
    // Blurring 720p frames is slow; reverse holds every one of them until the input ends.
    const graph = "scale=1280:720,boxblur=20,scale=32:32,reverse";
    const req = jobRequest({
      timeoutMs: 60_000,
      args: ["-i", "{{in}}", "-vf", graph, "-f", "null", "-"],
      inputs: [input("in", "long.mp4")],
    });
    await h.api.submit(req);
    const done = await h.api.waitFor(req.jobId, (s) => s.state === "finished", 45_000);
    expect(done.outcome).toMatchObject({ status: "failed", errorCode: "JOB_STALLED" });
    expect(done.outcome!.errorMessage).toMatch(
      /^ffmpeg wrote no new output for [5-7] s although it kept working.*put -ss before -i/,
    );
    expect(done.outcome!.runtimeMs).toBeGreaterThanOrEqual(5000);
  });

  it("lets a slow job that keeps making output run past both windows", async () => {
    const req = jobRequest({
      timeoutMs: 60_000,
      args: ["-re", "-i", "{{in}}", "-t", "7", "-f", "null", "-"],
      inputs: [input("in", "long.mp4")],
    });
    await h.api.submit(req);
    const done = await h.api.waitFor(req.jobId, (s) => s.state === "finished", 45_000);
    expect(done.outcome).toMatchObject({ status: "completed", errorCode: null });
    expect(done.outcome!.runtimeMs).toBeGreaterThanOrEqual(6500);
  });
});
