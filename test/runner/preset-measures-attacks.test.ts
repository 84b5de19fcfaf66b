import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { addDolbyVisionRecord } from "../support/dolby-vision-box.ts";
import { variedMedia } from "../support/varied-media.ts";
import { runPresetJob } from "./preset-job.ts";
import { useRunnerHarness } from "./runner-harness.ts";

/**
 * The attack pass of 2026-11-27 on HDR inputs and what presets measure before they plan, each finding
 * made into a file and run on a real runner (docs/security.md, "HDR and preset measures").
 */
const { dir } = variedMedia();
const harness = useRunnerHarness({ RUNNER_CONCURRENCY: "2" }, dir);

/** Files made once per machine in the served folder, under names of their own. */
function make(file: string, args: string[]): string {
  if (!existsSync(join(dir, file))) execFileSync("ffmpeg", ["-v", "error", "-y", ...args, join(dir, file)]);
  return file;
}

beforeAll(() => {
  make("attack-pq-untagged.mp4", [
    "-f",
    "lavfi",
    "-i",
    "testsrc=d=2:s=320x240",
    "-c:v",
    "libx264",
    "-pix_fmt",
    "yuv420p",
    "-color_trc",
    "smpte2084",
  ]);
  make("attack-float-spikes.wav", [
    "-f",
    "lavfi",
    "-i",
    "aevalsrc=0.05*random(0)+if(lt(mod(t\\,1)\\,0.001)\\,40\\,0):s=48000:c=stereo",
    "-t",
    "4",
    "-c:a",
    "pcm_f32le",
  ]);
  make("attack-silence.wav", ["-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo", "-t", "3"]);
  make("attack-long.flac", ["-f", "lavfi", "-i", "sine=f=440:r=8000:d=3600", "-c:a", "flac"]);
  make("attack-wrapped.ts", [
    "-f",
    "lavfi",
    "-i",
    "testsrc=d=14:s=320x240:r=25",
    "-c:v",
    "libx264",
    "-g",
    "500",
    "-keyint_min",
    "500",
    "-sc_threshold",
    "0",
    "-output_ts_offset",
    "95439.3",
    "-f",
    "mpegts",
  ]);
  if (!existsSync(join(dir, "attack-dv-untagged.mp4"))) {
    const plain = make("attack-hevc-untagged.mp4", [
      "-f",
      "lavfi",
      "-i",
      "testsrc=d=2:s=320x240",
      "-c:v",
      "libx265",
      "-x265-params",
      "log-level=error",
      "-pix_fmt",
      "yuv420p10le",
      "-tag:v",
      "hvc1",
    ]);
    copyFileSync(join(dir, plain), join(dir, "attack-dv-untagged.mp4"));
    addDolbyVisionRecord(join(dir, "attack-dv-untagged.mp4"), { profile: 8, level: 1, compatibility: 1 });
  }
  if (!existsSync(join(dir, "attack-dv5.mp4"))) {
    copyFileSync(join(dir, "hdr10-pq.mp4"), join(dir, "attack-dv5.mp4"));
    addDolbyVisionRecord(join(dir, "attack-dv5.mp4"), { profile: 5, level: 3, compatibility: 0 });
  }
});

describe("HDR that says little about itself", () => {
  for (const file of ["attack-pq-untagged.mp4", "attack-dv-untagged.mp4"]) {
    it(`${file}: tone-mapped, not failed (the chain names its own primaries)`, async () => {
      const { outcome } = await runPresetJob(harness, "web-mp4", { height: 240 }, { video: file });
      expect(outcome.status, `${outcome.errorMessage}\n${outcome.stderrTail.slice(-300)}`).toBe("completed");
      expect(outcome.plannedArgs?.join(" ")).toContain("tonemap=tonemap=mobius");
    });
  }

  it("Dolby Vision 5 re-encoded by trim (into WebM) is refused, as every preset that shows it", async () => {
    const { outcome } = await runPresetJob(
      harness,
      "trim",
      { start: 0, duration: 1 },
      { video: "attack-dv5.mp4" },
      {
        outputs: { clip: "clip.webm" },
      },
    );
    expect(outcome).toMatchObject({ status: "failed", errorCode: "INPUT_COLOUR_UNSUPPORTED" });
  });
});

describe("loudness measures a second pass cannot take", () => {
  it("a float file measuring louder than 0 LUFS: loudnorm in one pass, said so, not a failed job", async () => {
    const { outcome } = await runPresetJob(harness, "loudnorm", {}, { media: "attack-float-spikes.wav" });
    expect(outcome.status, `${outcome.errorMessage}\n${outcome.plannedArgs?.join(" ")}`).toBe("completed");
    expect(outcome.presetReport?.loudness?.reason).toContain("one pass");
  });

  it("digital silence: refused INPUT_SILENT once measured, the measuring billed", async () => {
    const { outcome } = await runPresetJob(harness, "loudnorm", {}, { media: "attack-silence.wav" });
    expect(outcome).toMatchObject({ status: "failed", errorCode: "INPUT_SILENT" });
    expect(outcome.runtimeMs).toBeGreaterThan(0);
  });

  it("an hour of audio whose measuring outlasts the job: JOB_TIMEOUT, its seconds billed", async () => {
    const { outcome } = await runPresetJob(harness, "loudnorm", {}, { media: "attack-long.flac" }, { timeoutMs: 3000 });
    expect(outcome).toMatchObject({ status: "failed", errorCode: "JOB_TIMEOUT" });
    expect(outcome.errorMessage).toContain("measured its inputs");
    expect(outcome.runtimeMs).toBeGreaterThan(2000);
  });
});

describe("an MPEG-TS whose clock wrapped (it starts at a negative time)", () => {
  it("thumbnail at 10 s finds the key frame at its start and writes the frame", async () => {
    const { outcome, files } = await runPresetJob(harness, "thumbnail", { at: 10 }, { video: "attack-wrapped.ts" });
    expect(outcome.status, `${outcome.errorMessage}\n${outcome.plannedArgs?.join(" ")}`).toBe("completed");
    expect(files.get("thumbnail")).toBeDefined();
  });
});
