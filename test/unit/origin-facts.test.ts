import { describe, expect, it } from "vitest";
import { answerHead, checkOrigin, parseRange } from "../../container/src/origin-facts.ts";

const GiB = 1024 ** 3;
const answer = (statusCode: number, headers: Record<string, string>) => ({ statusCode, headers });
const facts = { size: 1000, etag: '"v1"', lastModified: "Tue, 24 Nov 2026 10:00:00 GMT" };

describe("an origin's answer to a range request", () => {
  it("reads ffmpeg's Range header, and nothing else", () => {
    expect(parseRange("bytes=0-")).toEqual({ start: 0, end: null });
    expect(parseRange("bytes=100-199")).toEqual({ start: 100, end: 199 });
    for (const h of [undefined, "bytes=5-1", "bytes=-500", "items=0-", "bytes=0-1,5-9"])
      expect(parseRange(h), h).toBeNull();
  });

  it("serves a 206 that starts where asked, and learns the input's size and validators from it", () => {
    const v = checkOrigin(
      null,
      answer(206, { "content-range": "bytes 100-999/1000", etag: '"v1"', "last-modified": facts.lastModified }),
      { start: 100, end: null },
      GiB,
    );
    expect(v).toEqual({ kind: "serve", facts, first: 100, last: 999 });
  });

  it("takes a whole-file 200 only from an origin that says it serves ranges", () => {
    expect(
      checkOrigin(
        null,
        answer(200, { "content-length": "1000", "accept-ranges": "bytes" }),
        { start: 0, end: null },
        GiB,
      ),
    ).toMatchObject({ kind: "serve", first: 0, last: 999 });
    expect(checkOrigin(null, answer(200, { "content-length": "1000" }), { start: 0, end: null }, GiB)).toEqual({
      kind: "no_ranges",
    });
    // A 200 to a request from the middle means the range was ignored.
    expect(
      checkOrigin(
        null,
        answer(200, { "content-length": "1000", "accept-ranges": "bytes" }),
        { start: 500, end: null },
        GiB,
      ),
    ).toEqual({ kind: "no_ranges" });
    expect(
      checkOrigin(null, answer(206, { "content-range": "bytes 0-999/1000" }), { start: 500, end: null }, GiB),
    ).toEqual({ kind: "no_ranges" });
  });

  it("calls a file whose size, ETag or Last-Modified moved a changed file", () => {
    const at = { start: 500, end: null };
    expect(
      checkOrigin(facts, answer(206, { "content-range": "bytes 500-1099/1100", etag: '"v1"' }), at, GiB),
    ).toMatchObject({ kind: "changed", why: "its size went from 1000 to 1100 bytes" });
    expect(
      checkOrigin(facts, answer(206, { "content-range": "bytes 500-999/1000", etag: '"v2"' }), at, GiB),
    ).toMatchObject({ kind: "changed", why: expect.stringMatching(/ETag/) });
    expect(
      checkOrigin(
        facts,
        answer(206, { "content-range": "bytes 500-999/1000", "last-modified": "Wed, 25 Nov 2026 10:00:00 GMT" }),
        at,
        GiB,
      ),
    ).toMatchObject({ kind: "changed", why: expect.stringMatching(/Last-Modified/) });
    expect(
      checkOrigin(facts, answer(206, { "content-range": "bytes 500-999/1000", etag: '"v1"' }), at, GiB),
    ).toMatchObject({ kind: "serve" });
  });

  it("answers ffmpeg with the range it asked for, clipped to the input, or 416 past its end", () => {
    expect(answerHead({ start: 100, end: null }, 1000)).toEqual({
      status: 206,
      first: 100,
      last: 999,
      headers: {
        "accept-ranges": "bytes",
        "content-type": "application/octet-stream",
        "content-length": "900",
        "content-range": "bytes 100-999/1000",
      },
    });
    expect(answerHead({ start: 0, end: 5000 }, 1000)).toMatchObject({ status: 206, last: 999 });
    expect(answerHead(null, 1000)).toMatchObject({
      status: 200,
      first: 0,
      last: 999,
      headers: { "content-length": "1000" },
    });
    expect(answerHead({ start: 1000, end: null }, 1000)).toMatchObject({
      status: 416,
      headers: { "content-range": "bytes */1000" },
    });
  });

  it("passes a request past the end on as 416, and refuses an input over the size limit", () => {
    expect(
      checkOrigin(facts, answer(416, { "content-range": "bytes */1000" }), { start: 1000, end: null }, GiB),
    ).toEqual({ kind: "past_end", size: 1000 });
    expect(
      checkOrigin(null, answer(206, { "content-range": "bytes 0-99/5000000000" }), { start: 0, end: 99 }, GiB),
    ).toEqual({ kind: "too_large" });
  });
});
