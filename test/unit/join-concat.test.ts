import { describe, expect, it } from "vitest";
import { checkArguments } from "../../src/jobs/policy/argument-policy.ts";
import { declaredNames } from "../../src/jobs/policy/declared-names.ts";
import { inputSafetyOptions } from "../../src/jobs/runner-request/command-line.ts";
import { scanPlaceholders } from "../../src/jobs/request/placeholders.ts";

describe("the join's concat: of its segments", () => {
  const names = declaredNames(["part0", "part1", "audio"], ["out"], [], false, []);
  const join = [
    "-i",
    "concat:{{part0}}|{{part1}}",
    "-i",
    "{{audio}}",
    "-map",
    "0:v:0",
    "-map",
    "1:a:0",
    "-c",
    "copy",
    "{{out}}",
  ];
  it("is the service's alone: a client's command may not read concat:, the join's may, of declared inputs only", () => {
    expect(checkArguments("ffmpeg", join, names)).toEqual([
      { index: 1, message: "the value of -i must be an input placeholder like {{video}}" },
    ]);
    expect(checkArguments("ffmpeg", join, names, { concatInputs: true })).toEqual([]);
    for (const bad of [
      "concat:{{part0}}|/etc/passwd",
      "concat:{{part0}}|{{nope}}",
      "concat:{{part0}}|{{out}}",
      "concat:http://x/a.ts",
    ]) {
      expect(checkArguments("ffmpeg", ["-i", bad, "{{out}}"], names, { concatInputs: true }), bad).toHaveLength(1);
    }
  });
  it("reads its parts as files (copied, not streamed), with concat and file the only protocols", () => {
    expect(
      scanPlaceholders(join)
        .uses.filter((u) => !u.whole)
        .map((u) => u.name),
    ).toEqual(["part0", "part1"]);
    expect(inputSafetyOptions("concat:/job/in/part0.ts|/job/in/part1.ts").slice(0, 2)).toEqual([
      "-protocol_whitelist",
      "concat,file",
    ]);
  });
});
