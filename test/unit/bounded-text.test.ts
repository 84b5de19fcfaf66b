import { describe, expect, it } from "vitest";
import { createHeadBuffer, createTailBuffer } from "../../container/src/bounded-text.ts";

describe("bounded output", () => {
  it("keeps the head of stdout and says it cut", () => {
    const b = createHeadBuffer(5);
    b.push(Buffer.from("abc"));
    b.push(Buffer.from("defgh"));
    expect(b.text()).toBe("abcde\n[output truncated]");
  });

  it("keeps the tail of stderr", () => {
    const b = createTailBuffer(4);
    b.push(Buffer.from("12345"));
    b.push(Buffer.from("67"));
    expect(b.text()).toBe("[earlier output dropped]\n4567");
  });
});
