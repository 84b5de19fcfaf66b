import { describe, expect, it } from "vitest";
import {
  escapeFilterPath,
  resolvePlaceholders,
  safeExtension,
  scanPlaceholders,
} from "../../src/jobs/request/placeholders.ts";

describe("placeholders", () => {
  it("finds whole-argument placeholders and ones inside filter graphs", () => {
    const { uses, problems } = scanPlaceholders(["-i", "{{in}}", "-vf", "subtitles={{subs}}:force_style=x", "{{out}}"]);
    expect(problems).toEqual([]);
    expect(uses).toEqual([
      { index: 1, name: "in", whole: true },
      { index: 3, name: "subs", whole: false },
      { index: 4, name: "out", whole: true },
    ]);
  });

  it("refuses placeholders embedded outside filter graphs and bad names", () => {
    const { problems } = scanPlaceholders(["-i", "file:{{in}}", "{{bad-name}}"]);
    expect(problems.map((p) => p.index)).toEqual([1, 2]);
    expect(problems[0].message).toMatch(/whole argument/);
    expect(problems[1].message).toMatch(/not a valid placeholder name/);
  });

  it("resolves to paths and escapes embedded ones for the filter graph", () => {
    const paths: Record<string, string> = {
      in: "/job/in/in.mp4",
      subs: "/job/in/it's:a,b.srt",
      out: "/job/out/out.mp4",
    };
    const args = resolvePlaceholders(["-i", "{{in}}", "-vf", "subtitles={{subs}}", "{{out}}"], (n) => paths[n]);
    expect(args[1]).toBe("/job/in/in.mp4");
    expect(args[3]).toBe("subtitles=/job/in/it\\\\\\'s\\\\:a\\,b.srt");
    expect(args[4]).toBe("/job/out/out.mp4");
    expect(() => resolvePlaceholders(["{{nope}}"], () => undefined)).toThrow(/names no declared/);
  });

  it("escapes both filter-graph levels", () => {
    expect(escapeFilterPath("a:b")).toBe("a\\\\:b");
    expect(escapeFilterPath("a[b];c")).toBe("a\\[b\\]\\;c");
  });

  it("takes safe extensions only", () => {
    expect(safeExtension("clip.MP4")).toBe("mp4");
    expect(safeExtension("/path/to/video.webm")).toBe("webm");
    expect(safeExtension("noext")).toBe("bin");
    expect(safeExtension("evil.m3u8;rm", "bin")).toBe("bin");
    expect(safeExtension("out", "")).toBe("");
  });
});
