import { describe, expect, it } from "vitest";
import { takeSlot } from "../../src/api/concurrency-slots.ts";

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
