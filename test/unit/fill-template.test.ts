import { describe, expect, it } from "vitest";
import { fillTemplate, MAX_FILLED_STRING_CHARS, usedVariables } from "../../src/templates/fill-template.ts";
import { templateShapeIssues } from "../../src/templates/template-shape.ts";
import { variableValues } from "../../src/templates/variable-values.ts";

describe("a template's values, filled in", () => {
  it("puts text into strings, a whole-string variable's own value outside argument lists, and leaves keys and other placeholders", () => {
    const job = {
      inputs: { video: { type: "url", url: "https://cdn.example/{{path}}" } },
      ffmpegArgs: ["-i", "{{video}}", "-crf", "{{crf}}", "{{out}}"],
      params: { height: "{{crf}}", flag: "{{loud}}" },
      metadata: { "{{path}}": "{{path}}" },
    };
    expect(fillTemplate(job, { path: "a b/c.mp4", crf: 23, loud: true })).toEqual({
      body: {
        inputs: { video: { type: "url", url: "https://cdn.example/a b/c.mp4" } },
        ffmpegArgs: ["-i", "{{video}}", "-crf", "23", "{{out}}"],
        params: { height: 23, flag: true },
        metadata: { "{{path}}": "a b/c.mp4" },
      },
    });
  });

  it("reads each value by its variable's type, and refuses what does not fit", () => {
    const variables = {
      n: { type: "integer" as const, minimum: 1, maximum: 10 },
      b: { type: "boolean" as const, default: false },
      s: { type: "string" as const, enum: ["a", "b"] },
      u: { type: "url" as const, default: "https://x.example/" },
    };
    expect(variableValues(variables, { n: "7", b: "true", s: "a" })).toEqual({
      values: { n: 7, b: true, s: "a", u: "https://x.example/" },
    });
    const refused = variableValues(variables, { n: "1e400", b: "yes", s: "c", u: "javascript:alert(1)", x: 1 });
    expect("issues" in refused && refused.issues.map((i) => i.path.join("."))).toEqual([
      "vars.x",
      "vars.n",
      "vars.b",
      "vars.s",
      "vars.u",
    ]);
    expect(variableValues({ s: { type: "string" } }, { s: "}} -f lavfi {{" })).toMatchObject({
      issues: [{ path: ["vars", "s"], message: "a value may not contain {{ or }}" }],
    });
    // A variable the job as sent no longer uses (its input was sent instead) is not required.
    expect(variableValues({ src: { type: "url" } }, {}, new Set())).toEqual({ values: {} });
  });

  it("names the variables a job uses, and a template's shape problems", () => {
    expect([...usedVariables({ a: ["{{x}}", { b: "-{{y}}-{{x}}" }] })].sort()).toEqual(["x", "y"]);
    const issues = templateShapeIssues(
      {
        inputs: { video: { type: "url", url: "{{src}}" } },
        ffmpegArgs: ["-i", "{{video}}", "{{out}}"],
        webhookUrl: "{{hook}}",
      },
      { src: { type: "url" }, video: { type: "string", default: "v" }, idle: { type: "string", default: "i" } },
    );
    expect(issues.map((i) => i.path.join("."))).toEqual(["job.webhookUrl", "variables.video", "variables.idle"]);
  });

  it("refuses a filled string past its limit without building it", () => {
    const job = { ffmpegArgs: ["-metadata", `t=${"{{v}}".repeat(800)}`], metadata: { a: "{{v}}" } };
    const got = fillTemplate(job, { v: "A".repeat(2048) });
    expect(got).toEqual({
      issues: [
        { path: ["job", "ffmpegArgs", "1"], message: expect.stringContaining(`more than ${MAX_FILLED_STRING_CHARS}`) },
      ],
    });
  });
});
