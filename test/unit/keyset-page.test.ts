import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor } from "../../src/storage/keyset-page.ts";

describe("list cursors", () => {
  it("round-trip and refuse garbage", () => {
    const c = { createdAt: "2026-01-01T00:00:00.000Z", id: "0b0c4a52-6f5c-4f5f-9d55-6c0e0d3b8d11" };
    expect(decodeCursor(encodeCursor(c))).toEqual(c);
    expect(decodeCursor("!!!")).toBeNull();
    expect(decodeCursor(btoa("[1,2]"))).toBeNull();
  });
});
