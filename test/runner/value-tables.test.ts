import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { ALLOWED_BITSTREAM_FILTERS, BITSTREAM_FILTER_STRING_OPTIONS } from "../../src/jobs/policy/bitstream-filters.ts";
import { FLAG_OPTIONS } from "../../src/jobs/policy/flag-options.ts";
import { BITMAP_SUBTITLE_CODECS, TEXT_SUBTITLE_CODECS } from "../../src/presets/subtitle-facts.ts";

/**
 * The bitstream-filter and flag tables against the installed ffmpeg (the build the runner image gets):
 * an upgrade that adds a bitstream filter, a string option to one, or a flag, fails here until
 * someone classifies it, instead of being allowed unseen.
 */
const ffmpeg = (...args: string[]) =>
  execFileSync("ffmpeg", ["-hide_banner", ...args], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });

describe("bitstream filters, against the installed ffmpeg", () => {
  const installed = ffmpeg("-bsfs")
    .split("\n")
    .slice(1)
    .map((l) => l.trim())
    .filter(Boolean);

  it("lists exactly the bitstream filters this ffmpeg has", () => {
    expect(installed.length).toBeGreaterThan(30);
    expect([...ALLOWED_BITSTREAM_FILTERS].sort()).toEqual([...installed].sort());
  });

  it("knows every option of theirs that takes text (the only kind that could carry a path)", () => {
    const found: Record<string, string[]> = {};
    for (const name of installed) {
      const help = ffmpeg("-h", `bsf=${name}`);
      const textOptions = [...help.matchAll(/^ {2}-([a-z_0-9]+) +<(string|dictionary|binary)>/gm)].map((m) => m[1]);
      if (textOptions.length) found[name] = textOptions;
    }
    expect(found).toEqual(BITSTREAM_FILTER_STRING_OPTIONS);
  });
});

describe("flag options, against the installed ffmpeg", () => {
  const help = ffmpeg("-h", "full");
  it.each(Object.keys(FLAG_OPTIONS))("-%s allows exactly the flags ffmpeg lists for it", (name) => {
    const at = help.indexOf(`\n  -${name} `);
    expect(at, `-${name} in ffmpeg -h full`).toBeGreaterThan(0);
    const flags: string[] = [];
    for (const line of help
      .slice(at + 1)
      .split("\n")
      .slice(1)) {
      const m = /^ {5}(\S+)/.exec(line);
      if (!m) break;
      flags.push(m[1]);
    }
    expect([...FLAG_OPTIONS[name]].sort()).toEqual(flags.sort());
  });
});

describe("subtitle codecs, against the installed ffmpeg's decoders", () => {
  it("takes each as text or as a bitmap, and none unseen", () => {
    // " S..... subrip   SubRip subtitle" and " S..... ssa   ASS (…) subtitle (codec ass)": the codec, not the decoder.
    const codecs = ffmpeg("-decoders")
      .split("\n")
      .flatMap((line) => {
        const m = /^ S\S{5} (\S+)\s.*?(?:\(codec (\S+)\))?$/.exec(line);
        // The legend's own line (" S..... = Subtitle") names no decoder.
        return m && m[1] !== "=" ? [m[2] ?? m[1]] : [];
      });
    expect(codecs.length).toBeGreaterThan(15);
    const unclassified = codecs.filter((c) => !TEXT_SUBTITLE_CODECS.has(c) && !BITMAP_SUBTITLE_CODECS.has(c));
    expect(unclassified).toEqual([]);
  });
});
