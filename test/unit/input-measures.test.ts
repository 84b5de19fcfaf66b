import { describe, expect, it } from "vitest";
import {
  keyframeFromListing,
  keyframeListingOptions,
  loudnessFromLog,
} from "../../src/presets/recipes/input-measures.ts";
import { loudnessRecipe } from "../../src/presets/recipes/audio-recipes.ts";
import { loudnessFilter } from "../../src/presets/recipes/loudness-plan.ts";
import { thumbnailRecipe } from "../../src/presets/recipes/video-recipes.ts";
import { trimRecipe } from "../../src/presets/recipes/trim-recipe.ts";
import { noAnswers, keyframeKey } from "../../src/presets/recipes/input-questions.ts";
import { TYPICAL_INPUT } from "../../src/presets/media-facts.ts";

const summary = (i: string, tp = "-18.41") =>
  `[Parsed_loudnorm_0 @ 0x5571041c5540] [info] \n{\n\t"input_i" : "${i}",\n\t"input_tp" : "${tp}",\n\t"input_lra" : "0.50",\n\t"input_thresh" : "-42.82",\n\t"output_i" : "-16.04",\n\t"normalization_type" : "dynamic",\n\t"target_offset" : "0.04"\n}\n`;

describe("loudnorm's first pass, read from its log", () => {
  it("reads the summary loudnorm printed last", () => {
    expect(loudnessFromLog(`[info] size=N/A\n${summary("-32.82")}`)).toEqual({
      integratedLufs: -32.82,
      truePeakDbtp: -18.41,
      rangeLu: 0.5,
      thresholdLufs: -42.82,
      targetOffsetLu: 0.04,
    });
  });

  it("is not fooled by an input's metadata printed like a summary, and reads -inf as silence", () => {
    // dump_format prints metadata lines prefixed [info]; a forged block there comes before the real one.
    const forged = `[info]     title           : ${summary("-16.00")}`;
    expect(loudnessFromLog(`${forged}\n${summary("-inf", "-73.2")}`)?.integratedLufs).toBeNull();
    expect(loudnessFromLog(forged)).toBeNull();
  });

  it("answers nothing for a summary whose numbers are not numbers", () => {
    expect(loudnessFromLog(summary("-1e999"))).toBeNull();
    expect(loudnessFromLog(summary("-16", "NaN"))).toBeNull();
    expect(loudnessFromLog("")).toBeNull();
  });
});

describe("the key frame at or before a time, from a packet listing", () => {
  it("reads from the file's start where the look-back reaches it (a wrapped MPEG-TS starts below 0)", () => {
    expect(keyframeListingOptions(6.98, -3.02)).toContain("%6.981000");
    expect(keyframeListingOptions(100, 10)).toContain("70.000000%100.001000");
  });

  it("finds it from the file's start, and none where the listing has none", () => {
    const listing = "11.400000,K_\n11.440000,__\n21.400000,K_\n21.440000,__\n";
    expect(keyframeFromListing(listing, 29.38, 11.38)).toBeCloseTo(10.02, 6);
    expect(keyframeFromListing(listing, 15, 11.38)).toBeCloseTo(0.02, 6);
    expect(keyframeFromListing("11.440000,__\n", 15, 11.38)).toBeNull();
    expect(keyframeFromListing("garbage,K_\n", 15, 0)).toBeNull();
  });
});

describe("two-pass loudness: linear where the true peak allows", () => {
  const target = { integratedLufs: -16, truePeakDbtp: -1.5, rangeLu: 11 };
  const measured = (i: number | null, tp: number) => ({
    integratedLufs: i,
    truePeakDbtp: tp,
    rangeLu: 20,
    thresholdLufs: -50,
    targetOffsetLu: 0.2,
  });

  it("applies one gain when it keeps the peak under the ceiling less the encode's headroom", () => {
    const near = loudnessFilter(target, measured(-48, -40));
    expect(near.filter).toBe("volume=32.00dB");
    expect(near.report).toMatchObject({ mode: "linear", before: { integratedLufs: -48 } });
  });

  it("runs loudnorm's dynamic mode, told the measures, where one gain would clip", () => {
    const peaky = loudnessFilter(target, measured(-20, -3));
    expect(peaky.filter).toContain("measured_I=-20:measured_TP=-3:measured_LRA=20:measured_thresh=-50:offset=0.2");
    expect(peaky.filter).toContain("TP=-2:");
    expect(peaky.report.mode).toBe("dynamic");
    expect(peaky.report.reason).toContain("+4.0 dB would put its true peak at 1.0 dBTP");
  });

  it("runs one pass for an input it could not measure, or one measuring louder than loudnorm's second pass takes", () => {
    expect(loudnessFilter(target, null)).toMatchObject({ report: { mode: "dynamic", before: null } });
    // A float file's spikes measured +8.1 LUFS: loudnorm refuses measured_I over 0, and the job failed.
    const over = loudnessFilter(target, { ...measured(8.1, 33.1), thresholdLufs: -1.9 });
    expect(over.filter).toBe("loudnorm=I=-16:TP=-2:LRA=11");
    expect(over.report.reason).toContain("outside what loudnorm's second pass takes");
  });

  it("refuses silence once measured (INPUT_SILENT), which the log gives as -inf throughout", () => {
    const silence = loudnessFromLog(summary("-inf", "-inf").replace('"-42.82"', '"-inf"'));
    expect(silence).toMatchObject({ integratedLufs: null, truePeakDbtp: -144, thresholdLufs: -144 });
    const answers = noAnswers();
    answers.loudness.set("media", silence);
    const plan = loudnessRecipe(
      { target: -16, truePeak: -1.5, range: 11 },
      { inputs: [{ name: "media", facts: TYPICAL_INPUT }], outputs: { normalized: "n.mp4" }, answers },
    );
    expect(plan).toMatchObject({ refused: { code: "INPUT_SILENT" } });
  });
});

describe("seeks into an input without an index, from the key frame the runner found", () => {
  const ts = {
    ...TYPICAL_INPUT,
    seekIndex: false,
    durationSeconds: 20,
    video: { ...TYPICAL_INPUT.video!, codec: "mpeg2video" },
  };
  const ctx = (keyframe: number | null, at: number) => {
    const answers = noAnswers();
    answers.keyframes.set(keyframeKey("video", at), keyframe);
    return { inputs: [{ name: "video", facts: ts }], outputs: { clip: "clip.mp4", thumbnail: "t.jpg" }, answers };
  };

  it("thumbnail: lands just before the key frame however far back, then decodes to the time", () => {
    const plan = thumbnailRecipe({ percent: 90, width: 320 }, ctx(10, 18));
    expect("args" in plan && plan.args.slice(0, 5)).toEqual(["-ss", "9.5", "-i", "{{video}}", "-ss"]);
    expect("args" in plan && plan.args[5]).toBe("8.5");
  });

  it("trim: copies from just before the key frame to the cut's end; re-encodes where none was found", () => {
    const copied = trimRecipe({ start: 12, duration: 2 }, ctx(10, 12));
    expect("args" in copied && copied.args.join(" ")).toMatch(/^-ss 9.5 -i \{\{video\}\} -t 4.5 .*-c:v copy/);
    const encoded = trimRecipe({ start: 12, duration: 2 }, ctx(null, 12));
    expect("args" in encoded && encoded.args.join(" ")).toContain("-c:v libx264");
  });
});
