import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { mediaFactsOf } from "../../src/presets/media-facts.ts";
import { toSdrFilters } from "../../src/presets/recipes/tone-map.ts";
import { ffprobeJson } from "../support/media-fixtures.ts";
import { pictureStats, problemsWithSdrPicture } from "../support/sdr-picture.ts";
import { SDR_REFERENCE, variedMedia } from "../support/varied-media.ts";

/**
 * The viewer's check the preset matrix applies to HDR inputs (test/support/sdr-picture.ts), shown to
 * tell a washed-out picture from a tone-mapped one: the HDR signal kept as 8-bit code values fails it,
 * the presets' tone-mapping passes it, on PQ and HLG alike.
 */
const { dir } = variedMedia();
const work = mkdtempSync(join(tmpdir(), "ffjobs-hdr-"));
const reference = pictureStats(join(dir, SDR_REFERENCE));

function encode(input: string, filters: string[], name: string): string {
  const out = join(work, name);
  const vf = ["scale=320:240", ...filters].join(",");
  execFileSync("ffmpeg", [
    "-v",
    "error",
    "-y",
    "-i",
    join(dir, input),
    "-vf",
    vf,
    "-c:v",
    "libx264",
    "-preset",
    "ultrafast",
    out,
  ]);
  return out;
}

describe("an HDR input's SDR picture, as a viewer sees it", () => {
  for (const input of ["hdr10-pq.mp4", "hlg.mp4"]) {
    it(`${input}: kept as 8-bit code values it is flat and washed out; tone-mapped it is not`, () => {
      const naive = encode(input, ["format=yuv420p"], `naive-${input}`);
      expect(problemsWithSdrPicture(naive, reference, false).join("; ")).toMatch(/flat|washed out/);
      const facts = mediaFactsOf(ffprobeJson(join(dir, input)))!;
      expect(facts.video?.hdr?.transfer).toBe(input.startsWith("hlg") ? "hlg" : "pq");
      const mapped = encode(input, toSdrFilters(facts.video!), `mapped-${input}`);
      expect(problemsWithSdrPicture(mapped, reference, true)).toEqual([]);
    });
  }

  it("reads the Dolby Vision record of the tests' profile 8.4 file", () => {
    const facts = mediaFactsOf(ffprobeJson(join(dir, "dolby-vision-8.4.mp4")))!;
    expect(facts.video?.hdr).toMatchObject({ transfer: "hlg", dolbyVision: { profile: 8, compatibility: 4 } });
  });
});
