import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { writePgsSubtitles } from "../support/pgs-subtitles.ts";
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

/** A Matroska file of `video` (and its subtitle tracks) with bytes of its header changed, as an attacker would. */
function patched(from: string, to: string, patch: (b: Buffer) => void): string {
  if (!existsSync(join(dir, to))) {
    const b = readFileSync(join(dir, from));
    patch(b);
    writeFileSync(join(dir, to), b);
  }
  return to;
}
const secondIndexOf = (b: Buffer, needle: Buffer) => b.indexOf(needle, b.indexOf(needle) + 1);

describe("subtitle tracks an attacker shapes (the attack pass of 2026-11-27)", () => {
  beforeAll(() => {
    const ff = (args: string[]) => execFileSync("ffmpeg", ["-v", "error", "-y", ...args]);
    if (!existsSync(join(dir, "attack-two-videos.mkv"))) {
      writePgsSubtitles(join(dir, ".attack-256.sup"), { width: 256, height: 256 }, [
        { fromSeconds: 0.2, toSeconds: 1.5 },
      ]);
      ff(
        ["-f", "lavfi", "-i", "testsrc=size=256x256:rate=25:duration=2", "-i", join(dir, ".attack-256.sup")].concat([
          "-map",
          "0:v",
          "-map",
          "0:v",
          "-map",
          "1",
          "-c:v",
          "libx264",
          "-c:s",
          "copy",
          join(dir, "attack-two-videos.mkv"),
        ]),
      );
      ff(["-i", join(dir, "subtitled.mp4"), "-map", "0", "-c", "copy", "-c:s", "srt", join(dir, "attack-srt.mkv")]);
    }
  });

  it("a second video stream declaring 16000 x 16000 (never decoded): a bitmap track is refused, not drawn on it", async () => {
    // Its codec made unknown (so nothing decodes it and no pixel limit checks it), its size 16000 x 16000.
    const file = patched("attack-two-videos.mkv", "attack-16k-canvas.mkv", (b) => {
      b.write("X", secondIndexOf(b, Buffer.from("V_MPEG4/ISO/AVC")) + 14, "latin1");
      for (const id of [0xb0, 0xba]) b.writeUInt16BE(0x3e80, secondIndexOf(b, Buffer.from([id, 0x82, 0x01, 0x00])) + 2);
    });
    const { outcome } = await runPresetJob(harness, "burn-subtitles", {}, { video: file });
    expect(outcome).toMatchObject({ status: "failed", errorCode: "INPUT_UNREADABLE" });
    expect(outcome.errorMessage).toContain("declares a video stream over");
  });

  it("a track in a codec this ffmpeg does not know: refused INPUT_UNREADABLE, not a failed ffmpeg", async () => {
    const file = patched("attack-srt.mkv", "attack-unknown-subs.mkv", (b) => {
      b.write("9", b.indexOf(Buffer.from("S_TEXT/UTF8")) + 10, "latin1");
    });
    const burn = await runPresetJob(harness, "burn-subtitles", {}, { video: file });
    expect(burn.outcome).toMatchObject({ status: "failed", errorCode: "INPUT_UNREADABLE" });
    const vtt = await runPresetJob(harness, "subtitles-vtt", {}, { media: file });
    expect(vtt.outcome).toMatchObject({ status: "failed", errorCode: "INPUT_UNREADABLE" });
    // Kept in Matroska, it would have been copied: ffmpeg cannot copy a codec it does not know.
    const kept = await runPresetJob(
      harness,
      "trim",
      { duration: 1, subtitles: true },
      { video: file },
      {
        outputs: { clip: "clip.mkv" },
      },
    );
    expect(kept.outcome).toMatchObject({ status: "failed", errorCode: "INPUT_UNREADABLE" });
  });
});
