import { execFileSync, spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ffprobeJson } from "../support/media-fixtures.ts";
import { variedMedia } from "../support/varied-media.ts";
import { runPresetJob } from "./preset-job.ts";
import { useRunnerHarness } from "./runner-harness.ts";

/**
 * What presets measure of their inputs before they plan (src/presets/recipes/input-questions.ts), on a
 * real runner: the key frame a seek into MPEG-TS needs, and loudness in two passes.
 */
const { dir } = variedMedia();
const harness = useRunnerHarness({ RUNNER_CONCURRENCY: "2" }, dir);

/** SSIM of two pictures at one size (1 is the same picture). */
function ssim(a: string, b: string): number {
  const run = spawnSync(
    "ffmpeg",
    ["-nostats", "-i", a, "-i", b, "-lavfi", "[0][1]scale2ref[x][y];[x][y]ssim", "-f", "null", "-"],
    { encoding: "utf8" },
  );
  return Number(/All:([\d.]+)/.exec(run.stderr)?.[1] ?? 0);
}

describe("a seek into MPEG-TS whose key frames are 10 s apart (timestamps from 10 s)", () => {
  const file = "long-gop-offset.ts";

  it("thumbnail at 90 %: the frame at 18 s, where a seek 5 s early found no key frame and wrote nothing", async () => {
    const { outcome, files } = await runPresetJob(harness, "thumbnail", { percent: 90 }, { video: file });
    expect(outcome.status, `${outcome.errorMessage}\n${outcome.plannedArgs?.join(" ")}`).toBe("completed");
    // The seek lands before the key frame at 10 s (from the file's start), 8 s back.
    expect(outcome.plannedArgs?.[0]).toBe("-ss");
    expect(Number(outcome.plannedArgs?.[1])).toBeCloseTo(9.52, 2);
    const reference = join(dir, "..", `ffjobs-thumb-reference-${process.pid}.png`);
    // Decoded from the start, no seek: the frame shown at 18 s.
    execFileSync("ffmpeg", ["-v", "error", "-y", "-i", join(dir, file), "-ss", "18", "-frames:v", "1", reference]);
    expect(ssim(files.get("thumbnail")!, reference)).toBeGreaterThan(0.9);
  });

  it("trim from 12 s: the video copied from its key frame at 10 s, not re-encoded", async () => {
    const { outcome, files } = await runPresetJob(harness, "trim", { start: 12, duration: 2 }, { video: file });
    expect(outcome.status, outcome.errorMessage ?? "").toBe("completed");
    expect(outcome.plannedArgs).toContain("copy");
    const video = ffprobeJson(files.get("clip")!).streams.find((s) => s.codec_type === "video");
    expect(video?.codec_name).toBe("h264");
    // From the key frame at 10 s to the cut's end at 14 s.
    expect(Number(video?.nb_frames)).toBeGreaterThanOrEqual(4 * 25 - 2);
  });

  it("trim of interlaced MPEG-2 copies it into .mp4, which holds MPEG-2, fields and all", async () => {
    const { outcome, files } = await runPresetJob(
      harness,
      "trim",
      { start: 0.5, duration: 1 },
      { video: "interlaced.ts" },
    );
    expect(outcome.status, outcome.errorMessage ?? "").toBe("completed");
    const video = ffprobeJson(files.get("clip")!).streams.find((s) => s.codec_type === "video");
    expect(video).toMatchObject({ codec_name: "mpeg2video", field_order: "tt" });
    expect(Number(video?.nb_frames)).toBeGreaterThan(10);
  });
});

describe("loudnorm in two passes: within 1 LU of the target, the true peak under the ceiling", () => {
  const cases = [
    // Its peaks stand 15 dB over its loudness: one gain to −16 LUFS would put them over −1.5 dBTP.
    ["speech.wav", "dynamic"],
    ["wide-dynamics.flac", "linear"],
    ["near-silent.wav", "linear"],
    ["percussive.wav", "dynamic"],
    ["hdr10-pq.mp4", "linear"],
  ] as const;
  for (const [file, mode] of cases) {
    it(`${file}: ${mode}, measured before and after`, async () => {
      const params = { target: -16, truePeak: -1.5 };
      const { outcome } = await runPresetJob(harness, "loudnorm", params, { media: file }, { withChecks: true });
      expect(outcome.status, `${outcome.errorMessage}\n${outcome.plannedArgs?.join(" ")}`).toBe("completed");
      const report = outcome.presetReport?.loudness;
      expect(report?.mode, report?.reason).toBe(mode);
      expect(report?.before?.integratedLufs).toBeLessThan(-16);
      expect(Math.abs(report!.after!.integratedLufs! + 16)).toBeLessThanOrEqual(1);
      expect(report!.after!.truePeakDbtp!).toBeLessThanOrEqual(-1.5);
      expect(outcome.plannedArgs?.join(" ")).toMatch(mode === "linear" ? /volume=[\d.]+dB/ : /measured_I=/);
    });
  }
});
