import { describe, expect, it } from "vitest";
import { createSemaphore } from "../../container/src/semaphore.ts";

describe("the runner's slots", () => {
  it("serve waiting jobs oldest first, whatever order they arrived in", async () => {
    const slots = createSemaphore(1);
    const releaseFirst = await slots.acquire("2026-01-01T00:00:00.000Z");
    const order: string[] = [];
    const wait = (rank: string) =>
      slots.acquire(rank).then((release) => {
        order.push(rank);
        return release();
      });
    const all = Promise.all([
      wait("2026-01-01T00:00:03.000Z"),
      wait("2026-01-01T00:00:01.000Z"),
      wait("2026-01-01T00:00:02.000Z"),
    ]);
    expect(slots.waitingCount()).toBe(3);
    releaseFirst();
    await all;
    expect(order).toEqual(["2026-01-01T00:00:01.000Z", "2026-01-01T00:00:02.000Z", "2026-01-01T00:00:03.000Z"]);
  });

  it("let a waiter whose job is canceled leave the line at once, without taking a slot", async () => {
    const slots = createSemaphore(1);
    const holder = await slots.acquire("a");
    const abort = new AbortController();
    const waiting = slots.acquire("b", abort.signal);
    const next = slots.acquire("c");
    abort.abort(new Error("canceled"));
    await expect(waiting).rejects.toThrow("canceled");
    expect(slots.waitingCount()).toBe(1);
    holder();
    (await next)();
    expect(slots.waitingCount()).toBe(0);
    // The slot came back: a new holder gets it at once.
    (await slots.acquire("d"))();
  });
});
