import { describe, expect, it } from "vitest";
import { takeToken, type Bucket } from "../../src/api/token-bucket.ts";
import { takeSlot } from "../../src/api/concurrency-slots.ts";

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


describe("concurrency slots (an account's running probes)", () => {
  it("lets `max` leases be held, says when the soonest frees, and frees expired ones by themselves", () => {
    const leases = new Map<string, number>();
    expect(takeSlot(leases, 0, 1, 45_000, "a")).toEqual({ taken: true, retryAfterSeconds: 0 });
    expect(takeSlot(leases, 10_000, 1, 45_000, "b")).toEqual({ taken: false, retryAfterSeconds: 35 });
    leases.delete("a");
    expect(takeSlot(leases, 10_000, 1, 45_000, "b").taken).toBe(true);
    // b's request died without giving it back: it frees itself at its expiry.
    expect(takeSlot(leases, 54_999, 1, 45_000, "c").taken).toBe(false);
    expect(takeSlot(leases, 55_000, 1, 45_000, "c").taken).toBe(true);
  });
});
