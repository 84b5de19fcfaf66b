import type { TickNews } from "../../jobs/lifecycle/tick-news.ts";

/**
 * An event stream's side of its coordinator's tick feed (JobCoordinator.tickFeed): `tick` answers
 * with the feed's next line. The feed is opened on the first call, one call to the coordinator for
 * the stream's whole life, and again only after it broke (the coordinator restarted: `tick` then
 * rejects once, and the stream waits before it asks again) or ended.
 */
export function tickFeedReader(open: () => Promise<ReadableStream<Uint8Array>>): {
  tick: () => Promise<TickNews>;
  close: () => void;
} {
  let reader: ReadableStreamDefaultReader<string> | null = null;
  let buffered = "";
  let closed = false;
  const drop = () => {
    void reader?.cancel().catch(() => {});
    reader = null;
    buffered = "";
  };
  return {
    async tick() {
      if (closed) throw new Error("the tick feed was closed");
      try {
        reader ??= (await open()).pipeThrough(new TextDecoderStream()).getReader();
        let end = buffered.indexOf("\n");
        while (end < 0) {
          const { done, value } = await reader.read();
          if (done) throw new Error("the coordinator's tick feed ended");
          buffered += value;
          end = buffered.indexOf("\n");
        }
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 1);
        return JSON.parse(line) as TickNews;
      } catch (err) {
        drop();
        throw err;
      }
    },
    close() {
      closed = true;
      drop();
    },
  };
}
