import { describe, expect, it } from "vitest";
import { createJobSchema } from "../../src/api/schemas/job-request.ts";
import { toJobSpec } from "../../src/jobs/request/job-request.ts";
import { checkJobRequest } from "../../src/jobs/request/check-job-request.ts";

const parse = (body: unknown) => createJobSchema.parse(body);

describe("job request rules", () => {
  it("defaults binary to ffmpeg and content types from the extension", () => {
    const spec = toJobSpec(
      parse({
        inputs: { a: { type: "url", url: "https://example.com/a.mp4" } },
        outputs: { o: { fileName: "x.webm" } },
        ffmpegArgs: ["-i", "{{a}}", "{{o}}"],
      }),
    );
    expect(spec.binary).toBe("ffmpeg");
    expect(spec.outputs.o.contentType).toBe("video/webm");
  });

  it("names array inputs input0, input1", () => {
    const req = parse({
      input: [
        { type: "url", url: "https://e.com/a.mp4" },
        { type: "url", url: "https://e.com/b.mp4" },
      ],
      ffmpegArgs: ["-i", "{{input1}}", "-f", "null", "-"],
    });
    expect(checkJobRequest(req)).toEqual([]);
    expect(Object.keys(toJobSpec(req).inputs)).toEqual(["input0", "input1"]);
  });

  it("refuses input and inputs together", () => {
    const req = parse({ input: [], inputs: {}, ffmpegArgs: ["-version"] });
    expect(checkJobRequest(req)).toEqual([{ path: ["input"], message: expect.stringMatching(/either/) }]);
  });

  it("points at unknown placeholders and unreferenced outputs", () => {
    const req = parse({
      inputs: { a: { type: "url", url: "https://e.com/a.mp4" } },
      outputs: { o: { fileName: "o.mp4" }, unused: { fileName: "u.mp4" } },
      ffmpegArgs: ["-i", "{{a}}", "-c", "{{typo}}", "{{o}}"],
    });
    expect(checkJobRequest(req)).toEqual([
      { path: ["ffmpegArgs", "3"], message: expect.stringMatching(/typo/) },
      { path: ["outputs", "unused"], message: expect.stringMatching(/never referenced/) },
    ]);
  });

  it("refuses an output named like an input", () => {
    const req = parse({
      inputs: { a: { type: "url", url: "https://e.com/a.mp4" } },
      outputs: { a: { fileName: "o.mp4" } },
      ffmpegArgs: ["-i", "{{a}}", "{{a}}"],
    });
    expect(checkJobRequest(req)[0].path).toEqual(["outputs", "a"]);
  });

  it("rejects unsafe output file names and non-http URLs at the schema", () => {
    for (const fileName of ["../x.mp4", ".hidden", "a/b.mp4", ""]) {
      expect(createJobSchema.safeParse({ outputs: { o: { fileName } }, ffmpegArgs: ["{{o}}"] }).success).toBe(false);
    }
    expect(
      createJobSchema.safeParse({ inputs: { a: { type: "url", url: "file:///etc/passwd" } }, ffmpegArgs: ["x"] })
        .success,
    ).toBe(false);
  });
});
