import { describe, expect, it } from "vitest";
import { useLocalStack } from "../support/local-stack.ts";
import { ffprobeJson } from "../support/media-fixtures.ts";

const { local } = useLocalStack();
const video = () => ({ type: "url", url: `${local.media.url}/clip.mp4` });

/** Runs a job to its end through the real stack (runner, host ffmpeg, storage), with its result. */
async function run(body: unknown) {
  const job = await local.runToEnd(body);
  const result = (await local.api.call("GET", `/v1/jobs/${job.id}/result`)).body;
  return { job, result };
}

describe("multi-step jobs, run for real", () => {
  it("two-pass x264: the first pass's log stays in the workspace for the second", async () => {
    const encode = (pass: string, out: string[]) => ({
      ffmpegArgs: ["-i", "{{video}}", "-c:v", "libx264", "-b:v", "150k", "-preset", "veryfast", "-pass", pass, ...out],
    });
    const { job, result } = await run({
      inputs: { video: video() },
      outputs: { out: { fileName: "two-pass.mp4" } },
      steps: [encode("1", ["-an", "-f", "null", "-"]), encode("2", ["-c:a", "aac", "{{out}}"])],
    });
    expect(job, JSON.stringify(job)).toMatchObject({ status: "completed", failedStep: null, ffmpegArgs: [] });
    expect(job.steps).toHaveLength(2);
    expect(job.steps[1].ffmpegArgs).toContain("2");
    const probe = ffprobeJson(job.outputs[0].downloadUrl);
    expect(probe.streams.map((s: any) => s.codec_name).sort()).toEqual(["aac", "h264"]);
    expect(Number(probe.format.duration)).toBeCloseTo(3, 0);
    // Without the first pass's stats file, x264's second pass cannot start: the log was shared.
    expect(result.stderrTail).not.toMatch(/stats file/i);
    expect(result.exitCode).toBe(0);
  });

  it("generate then mux, with a scratch file between the steps, and a final ffprobe step", async () => {
    const { job, result } = await run({
      inputs: { video: video() },
      scratch: { tone: "tone.wav" },
      outputs: { muxed: { fileName: "muxed.mp4" } },
      steps: [
        { ffmpegArgs: ["-filter_complex", "sine=frequency=330:duration=2[a]", "-map", "[a]", "{{tone}}"] },
        {
          ffmpegArgs: [
            "-i",
            "{{video}}",
            "-i",
            "{{tone}}",
            "-map",
            "0:v",
            "-map",
            "1:a",
            "-c:v",
            "copy",
            "-c:a",
            "aac",
            "-shortest",
            "{{muxed}}",
          ],
        },
        { binary: "ffprobe", ffmpegArgs: ["-v", "error", "-print_format", "json", "-show_streams", "{{muxed}}"] },
      ],
    });
    expect(job, JSON.stringify(job)).toMatchObject({ status: "completed", scratch: { tone: "tone.wav" } });
    // Only declared outputs are stored: the scratch file is not.
    expect(job.outputs.map((o: any) => o.label)).toEqual(["muxed"]);
    expect(result.probe.streams.map((s: any) => s.codec_name).sort()).toEqual(["aac", "h264"]);
    const probe = ffprobeJson(job.outputs[0].downloadUrl);
    expect(Number(probe.format.duration)).toBeLessThan(2.5);
    expect(result.runtimeSeconds).toBeGreaterThanOrEqual(1);
  });

  it("bills the run time of every step", async () => {
    // Each step reads 1.2 s of video at its real rate: 2.4 s in all, billed as at least 3 s (one step alone: 2 s).
    const realTime = { ffmpegArgs: ["-re", "-i", "{{video}}", "-t", "1.2", "-f", "null", "-"] };
    const { job } = await run({ inputs: { video: video() }, steps: [realTime, realTime] });
    expect(job, JSON.stringify(job)).toMatchObject({ status: "completed" });
    expect(job.runtimeSeconds).toBeGreaterThanOrEqual(3);
    expect(job.creditsCharged).toBe(job.runtimeSeconds);
  });

  it("fails at the first failing step, says which, and runs no step after it", async () => {
    const { job, result } = await run({
      inputs: { video: video() },
      scratch: { a: "a.mp4" },
      outputs: { never: { fileName: "never.mp4" } },
      steps: [
        { ffmpegArgs: ["-i", "{{video}}", "-t", "1", "{{a}}"] },
        { ffmpegArgs: ["-i", "{{a}}", "-c:v", "no_such_encoder", "{{never}}"] },
        { ffmpegArgs: ["-i", "{{a}}", "{{never}}"] },
      ],
    });
    expect(job).toMatchObject({ status: "failed", errorCode: "PROCESS_FAILED", failedStep: 1, outputs: [] });
    expect(job.errorMessage).toMatch(/^steps\[1\]: ffmpeg exited with code \d+/);
    expect(result).toMatchObject({ failedStep: 1 });
    expect(result.exitCode).not.toBe(0);
    expect(result.stderrTail).toMatch(/no_such_encoder/);
    // The first step ran (a second of video), so the job is billed for it.
    expect(result.runtimeSeconds).toBeGreaterThanOrEqual(1);
  });
});
