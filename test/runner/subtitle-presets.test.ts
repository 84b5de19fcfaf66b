import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { problemsWithCaptions } from "../support/burned-captions.ts";
import { ffprobeJson } from "../support/media-fixtures.ts";
import { variedMedia } from "../support/varied-media.ts";
import { runPresetJob } from "./preset-job.ts";
import { useRunnerHarness } from "./runner-harness.ts";

/** Subtitles through the presets on a real runner, beyond what the preset matrix checks of every kind. */
const { dir } = variedMedia();
const harness = useRunnerHarness({ RUNNER_CONCURRENCY: "2" }, dir);
const subtitleStreams = (file: string) => ffprobeJson(file).streams.filter((s) => s.codec_type === "subtitle");

describe("burned captions sit where they are asked", () => {
  it("at the top with position: top, which the bottom-placement check then refuses", async () => {
    const { outcome, files } = await runPresetJob(
      harness,
      "burn-subtitles",
      { position: "top", color: "#FFFF00" },
      { video: "phone-rotated-odd.mp4", subtitles: "captions.srt" },
    );
    expect(outcome.status, outcome.errorMessage ?? "").toBe("completed");
    const problems = problemsWithCaptions(files.get("burned")!, join(dir, "phone-rotated-odd.mp4"), 0.7);
    expect(problems.join(" ")).toMatch(/no caption at the bottom/);
    expect(problems.join(" ")).toMatch(/the top changed/);
  });
});

describe("soft subtitles", () => {
  it("web-mp4 keeps the English track as timed text, language and all", async () => {
    const { outcome, files } = await runPresetJob(
      harness,
      "web-mp4",
      { height: 240, subtitles: true },
      { video: "subtitled.mp4" },
    );
    expect(outcome.status, outcome.errorMessage ?? "").toBe("completed");
    expect(subtitleStreams(files.get("mp4")!)).toEqual([
      expect.objectContaining({ codec_name: "mov_text", tags: expect.objectContaining({ language: "eng" }) }),
    ]);
  });

  it("trim into .mkv keeps a bitmap track as it is; into .mp4 it is refused SUBTITLES_NOT_TEXT", async () => {
    const params = { start: 0, duration: 1.5, subtitles: true };
    const mkv = await runPresetJob(
      harness,
      "trim",
      params,
      { video: "pgs-subtitles.mkv" },
      { outputs: { clip: "clip.mkv" } },
    );
    expect(mkv.outcome.status, mkv.outcome.errorMessage ?? "").toBe("completed");
    expect(subtitleStreams(mkv.files.get("clip")!)).toEqual([
      expect.objectContaining({ codec_name: "hdmv_pgs_subtitle" }),
    ]);
    const mp4 = await runPresetJob(harness, "trim", params, { video: "pgs-subtitles.mkv" });
    expect(mp4.outcome).toMatchObject({ status: "failed", errorCode: "SUBTITLES_NOT_TEXT" });
    expect(mp4.outcome.errorMessage).toContain("burn-subtitles");
  });

  it("subtitles-vtt turns a timed-text track into WebVTT with its cues", async () => {
    const { outcome, files } = await runPresetJob(harness, "subtitles-vtt", {}, { media: "subtitled.mp4" });
    expect(outcome.status, outcome.errorMessage ?? "").toBe("completed");
    const vtt = readFileSync(files.get("subtitles")!, "utf8");
    expect(vtt).toMatch(/^WEBVTT/);
    expect(vtt).toContain("Hello there");
    expect(vtt).toContain("Second caption");
  });

  it("hls-ladder names the input's own track in the master playlist with its language", async () => {
    const { outcome, files } = await runPresetJob(
      harness,
      "hls-ladder",
      { renditions: [144, 240], segmentSeconds: 1, subtitles: true },
      { video: "subtitled.mp4" },
    );
    expect(outcome.status, outcome.errorMessage ?? "").toBe("completed");
    const master = readFileSync(files.get("hls/master.m3u8")!, "utf8");
    expect(master).toMatch(/#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs0",.*LANGUAGE="eng"/);
    expect(master).toMatch(/#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs1",.*LANGUAGE="eng"/);
  });

  it("a track number past the last is refused, saying how many there are", async () => {
    const { outcome } = await runPresetJob(harness, "subtitles-vtt", { track: 3 }, { media: "subtitled.mp4" });
    expect(outcome).toMatchObject({ status: "failed", errorCode: "INPUT_HAS_NO_SUBTITLES" });
    expect(outcome.errorMessage).toContain("which has 1 (0 to 0)");
  });
});
