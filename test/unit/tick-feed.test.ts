import { describe, expect, it } from "vitest";
import { tickFeedReader } from "../../src/api/routes/tick-feed.ts";

const news = (n: number) => ({
  woken: true,
  ended: false,
  snapshot: { status: "running" as const, progress: { progress: n, at: "" } },
});
const chunked = (text: string, cut: number) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      const bytes = new TextEncoder().encode(text);
      for (let i = 0; i < bytes.length; i += cut) c.enqueue(bytes.subarray(i, i + cut));
      c.close();
    },
  });

describe("an event stream's reader of its coordinator's tick feed", () => {
  it("opens the feed once and reads it line by line, however the bytes arrive", async () => {
    let opened = 0;
    const lines = [1, 2, 3].map((n) => `${JSON.stringify(news(n))}\n`).join("");
    const feed = tickFeedReader(async () => {
      opened++;
      return chunked(lines, 7);
    });
    for (const n of [1, 2, 3]) expect(await feed.tick()).toEqual(news(n));
    expect(opened).toBe(1);
  });

  it("opens it again only after it broke or ended, and not at all once closed", async () => {
    let opened = 0;
    const feed = tickFeedReader(async () => {
      opened++;
      if (opened === 1) return new ReadableStream({ pull: (c) => c.error(new Error("coordinator restarted")) });
      return chunked(`${JSON.stringify(news(opened))}\n`, 1000);
    });
    await expect(feed.tick()).rejects.toThrow("coordinator restarted");
    expect(await feed.tick()).toEqual(news(2));
    await expect(feed.tick()).rejects.toThrow(/ended/);
    expect(await feed.tick()).toEqual(news(3));
    feed.close();
    await expect(feed.tick()).rejects.toThrow(/closed/);
    expect(opened).toBe(3);
  });
});
