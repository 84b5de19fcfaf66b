import { describe, expect, it } from "vitest";
import { contentTypeFor } from "../../src/storage/content-types.ts";
import { checkArguments } from "../../src/jobs/policy/argument-policy.ts";
import { planPreset } from "../../src/presets/recipes/recipe-book.ts";
import { PROTOTYPE_NAMES } from "../../src/jobs/request/placeholders.ts";

/**
 * Constant tables looked up by what a client wrote (a file's extension, an option's or a format's name,
 * a preset's name) find only their own keys (found by an attack pass: an output "o.__proto__" was typed
 * as Object.prototype, which D1 refused at every tick of the job, and "-constructor" was refused with
 * the text of a function).
 */
const names = {
  inputs: new Set(["in"]),
  outputs: new Set(["out"]),
  scratch: new Set<string>(),
  directories: new Set<string>(),
};

describe("lookups by a client's word", () => {
  it("type a file whose extension is an Object.prototype member as plain bytes", () => {
    expect(PROTOTYPE_NAMES.size).toBeGreaterThan(5);
    for (const name of PROTOTYPE_NAMES) expect(contentTypeFor(`o.${name}`), name).toBe("application/octet-stream");
    expect(contentTypeFor("o.MP4")).toBe("video/mp4");
  });

  it("refuse an option or a format named after one as unknown, in the policy's own words", () => {
    for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      for (const args of [
        ["-i", "{{in}}", `-${name}`, "1", "{{out}}"],
        ["-i", "{{in}}", "-f", name, "{{out}}"],
      ]) {
        const problems = JSON.stringify(checkArguments("ffmpeg", args, names));
        expect(problems, args.join(" ")).toMatch(/not allowed|unknown|GET \/v1\/policy/);
        expect(problems).not.toMatch(/native code|\[object Object\]|function/);
      }
    }
  });

  it("know no preset by such a name", () => {
    for (const name of ["constructor", "__proto__", "toString"]) {
      expect(() => planPreset(name, {}, { inputs: [], outputs: {} })).toThrow(`no recipe for preset ${name}`);
    }
  });
});
