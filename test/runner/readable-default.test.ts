import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checksToRun } from "../../src/jobs/checks/default-checks.ts";
import { MUXER_EXTENSIONS } from "../../src/jobs/policy/output-extensions.ts";
import { inputSafetyOptions } from "../../src/jobs/runner-request/command-line.ts";

/**
 * The default check, `readable`, held to the real binary: every output name that gets it is a file the
 * runner's probe (its input options: media demuxers only) reads back, and every still-image name that
 * does not is one it cannot read. An ffmpeg that reads more, or less, fails this test.
 */
const dir = mkdtempSync(join(tmpdir(), "ffjobs-readable-"));
const AUDIO = new Set([
  "mp3",
  "mp2",
  "wav",
  "flac",
  "ogg",
  "oga",
  "opus",
  "adts",
  "ac3",
  "eac3",
  "caf",
  "aiff",
  "au",
  "wv",
]);
const SUBTITLES = new Set(["srt", "webvtt", "ass"]);
writeFileSync(join(dir, "s.srt"), "1\n00:00:00,000 --> 00:00:00,500\nhello\n");

/** A small file of that muxer written by ffmpeg, or null where ffmpeg cannot write one from a test pattern. */
function make(muxer: string, ext: string): string | null {
  const path = join(dir, `o.${ext}`);
  const source = SUBTITLES.has(muxer)
    ? ["-i", join(dir, "s.srt")]
    : AUDIO.has(muxer) || (muxer === "ipod" && ext !== "m4v")
      ? ["-f", "lavfi", "-i", "sine=d=0.5"]
      : ["-f", "lavfi", "-i", `testsrc=s=${muxer === "3gp" ? "176x144" : "64x64"}:r=25:d=0.5`];
  const frames = muxer === "image2" || muxer === "webp" ? ["-frames:v", "1", "-update", "1"] : [];
  const made = spawnSync("ffmpeg", ["-v", "error", "-y", ...source, ...frames, path]);
  return made.status === 0 ? path : null;
}

function probeReads(path: string): boolean {
  const probe = spawnSync(
    "ffprobe",
    ["-v", "error", ...inputSafetyOptions(path), "-of", "json", "-show_format", "-show_streams", path],
    { encoding: "utf8" },
  );
  try {
    const json = JSON.parse(probe.stdout);
    return typeof json.format?.format_name === "string" && json.streams?.length > 0;
  } catch {
    return false;
  }
}

describe("the default check, against the binary", () => {
  it("is given exactly to the names whose files the runner's probe reads back", () => {
    const wrong: string[] = [];
    let tried = 0;
    for (const [muxer, extensions] of Object.entries(MUXER_EXTENSIONS))
      for (const ext of extensions) {
        const readable = checksToRun({ fileName: `o.${ext}` })?.readable === true;
        if (!readable && muxer !== "image2") continue;
        const path = make(muxer, ext);
        if (!path) continue;
        tried++;
        if (probeReads(path) !== readable)
          wrong.push(`${ext} (${muxer}): readable ${readable}, probe reads it ${!readable}`);
      }
    expect(wrong).toEqual([]);
    expect(tried).toBeGreaterThan(60);
  });
});
