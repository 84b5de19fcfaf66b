import { describe, expect, it } from "vitest";
import { takeToken, type Bucket } from "../../src/api/token-bucket.ts";

describe("token bucket", () => {
  it("allows a full minute's budget at once, then refuses with the wait until the next token", () => {
    let bucket: Bucket | null = null;
    for (let i = 0; i < 60; i++) {
      const r = takeToken(bucket, 0, 60);
      expect(r.allowed).toBe(true);
      bucket = r.bucket;
    }
    const refused = takeToken(bucket, 0, 60);
    expect(refused).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    expect(takeToken(refused.bucket, 999, 60).allowed).toBe(false);
    expect(takeToken(refused.bucket, 1000, 60).allowed).toBe(true);
  });

  it("refills evenly and never above the capacity", () => {
    const empty = { tokens: 0, updatedMs: 0 };
    expect(takeToken(empty, 0, 6).retryAfterSeconds).toBe(10);
    const later = takeToken(empty, 3_600_000, 6);
    expect(later.allowed).toBe(true);
    expect(later.bucket.tokens).toBe(5);
  });
});
