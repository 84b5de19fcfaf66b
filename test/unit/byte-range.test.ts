import { describe, expect, it } from "vitest";
import { answerRange } from "../../src/storage/byte-range.ts";

describe("Range requests (RFC 9110 §14)", () => {
  it("serves one range as asked, clamped to the end; suffix ranges count from the end", () => {
    expect(answerRange("bytes=0-187", 1000)).toEqual({ kind: "partial", offset: 0, length: 188 });
    expect(answerRange("bytes=900-", 1000)).toEqual({ kind: "partial", offset: 900, length: 100 });
    expect(answerRange("bytes=990-5000", 1000)).toEqual({ kind: "partial", offset: 990, length: 10 });
    expect(answerRange("bytes=-100", 1000)).toEqual({ kind: "partial", offset: 900, length: 100 });
    expect(answerRange("bytes=-5000", 1000)).toEqual({ kind: "partial", offset: 0, length: 1000 });
  });

  it("answers unsatisfiable for a start at or past the end and a zero suffix", () => {
    expect(answerRange("bytes=1000-", 1000)).toEqual({ kind: "unsatisfiable" });
    expect(answerRange("bytes=5000-6000", 1000)).toEqual({ kind: "unsatisfiable" });
    expect(answerRange("bytes=-0", 1000)).toEqual({ kind: "unsatisfiable" });
    expect(answerRange("bytes=0-", 0)).toEqual({ kind: "unsatisfiable" });
  });

  it("ignores what it does not understand: no header, other units, several ranges, a reversed range", () => {
    for (const h of [undefined, "", "items=0-1", "bytes=0-1,5-9", "bytes=9-1", "bytes=-", "bytes=a-b"])
      expect(answerRange(h, 1000), String(h)).toEqual({ kind: "whole" });
  });
});
