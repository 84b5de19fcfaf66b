import type { IncomingMessage } from "node:http";
import { ended, JobEnded } from "./job-ended.ts";
import { checkOrigin, type ByteRange, type OriginFacts } from "./origin-facts.ts";
import { FetchFailure, openUrl, safeDownload, type SafeFetchOptions } from "./safe-fetch.ts";

export type OriginOptions = {
  fetch: Omit<SafeFetchOptions, "maxBytes" | "timeoutMs" | "trusted" | "signal">;
  maxInputBytes: number;
  maxCopiedInputBytes: number;
  /** Past `maxCopiedInputBytes`, keep that much of a copy instead of failing (a dry run's probe reads a prefix). */
  truncateCopies?: boolean;
  deadline: number;
  canceled: AbortSignal;
};

/** Within this of the job's deadline, a read that breaks is taken to have been ended by it. */
const DEADLINE_SLACK_MS = 1000;
/** How long the answer to the open waits for ffmpeg's first read before it is let go. */
const OPENING_KEPT_MS = 10_000;
/**
 * A read is fetched in windows, and everything asked of the origin is sent whether ffmpeg reads it
 * or not. A read that has delivered less than SEQUENTIAL_AFTER_BYTES may be ffmpeg peeking at a
 * header before a seek: from an origin that answers quickly its windows stay at the first's size and
 * the next is asked for only when the current one is used up, so an abandoned read costs at most one
 * window more than it took (eager windows read 2-3.5x bare ffprobe's bytes on a loopback origin).
 * A read past that, or any read from an origin slow to answer (where a wait per window costs more
 * time than a window ahead costs bytes), is a stream: windows double to the largest (as rclone reads
 * chunks) and the next is asked for once half of the current is read (a small one: as it starts), so
 * its first byte's wait overlaps the rest of the current one.
 */
export const FIRST_WINDOW_BYTES = 256 * 1024;
export const MAX_WINDOW_BYTES = 16 * 1024 * 1024;
/** More than ffmpeg reads of a header before it seeks, and than the relay's path holds ahead of it (~0.5 MiB). */
export const SEQUENTIAL_AFTER_BYTES = 1024 * 1024;
/** An origin whose quickest answer so far took this long is slow to answer (loopback takes ~1 ms, a CDN 10-50). */
export const SLOW_ANSWER_MS = 10;
/** Windows up to this size ask for the next one as soon as they start (at 50 MiB/s, 2 MiB take 40 ms). */
const EAGER_WINDOW_BYTES = 2 * 1024 * 1024;

/** Bytes `first`..`last` of the input, as the origin sends them. */
export type OriginBody = { body: IncomingMessage; first: number; last: number };

/**
 * One streamed input's origin. `open` asks for the whole file from byte 0 before the job runs: it
 * learns the size and validators (origin-facts.ts), fails at once on an HTTP error, copies an input
 * whose origin ignores ranges, and keeps that first answer for ffmpeg's first read, which nearly
 * always starts at 0 (so the open costs no extra round trip). Every later range is checked against
 * what the first answer said.
 */
export type InputOrigin = {
  readonly name: string;
  /** What the first answer said the input is (for a copy: its size). */
  readonly facts: () => OriginFacts | null;
  /** Set when the origin ignores ranges: the input was copied whole to this path. */
  readonly copiedTo: () => string | null;
  open: () => Promise<void>;
  /** Bytes `first`..`last`, fetched window by window, each answer checked against the first. */
  read: (first: number, last: number, abandoned: AbortSignal) => AsyncGenerator<Buffer>;
  /** What a failed read means for the job. */
  failure: (err: unknown) => JobEnded;
  /** Bytes taken from the origin so far; the server adds what it relays. */
  originBytes: number;
  close: () => void;
};

export function createInputOrigin(
  input: { name: string; url: string; trusted: boolean; copyPath: string },
  opts: OriginOptions,
): InputOrigin {
  let facts: OriginFacts | null = null;
  let copiedTo: string | null = null;
  let opening: OriginBody | null = null;
  /** The quickest answer (request to headers) the origin has given. */
  let quickestAnswerMs = Infinity;
  const { name } = input;

  const failure = (broken: unknown): JobEnded => {
    const err = broken instanceof BrokenRead ? broken.cause : broken;
    if (err instanceof JobEnded) return err;
    if (opts.canceled.aborted) return ended("CANCELED", "The job was canceled");
    // The deadline's own timer may fire a moment before the runner's kill: near it, a broken read is the deadline's.
    if (Date.now() >= opts.deadline - DEADLINE_SLACK_MS)
      return ended("JOB_TIMEOUT", "The job's time limit ran out while reading an input");
    return ended(
      "INPUT_FETCH_FAILED",
      `Input "${name}" could not be fetched: ${err instanceof FetchFailure ? err.message : "network error"}`,
    );
  };

  const request = async (range: ByteRange, abandoned: AbortSignal): Promise<IncomingMessage> => {
    const signal = AbortSignal.any([
      abandoned,
      opts.canceled,
      AbortSignal.timeout(Math.max(1, opts.deadline - Date.now())),
    ]);
    try {
      const asked = performance.now();
      const res = await openUrl(
        input.url,
        { ...opts.fetch, trusted: input.trusted, signal },
        { range: `bytes=${range.start}-${range.end ?? ""}` },
      );
      quickestAnswerMs = Math.min(quickestAnswerMs, performance.now() - asked);
      return res;
    } catch (err) {
      // A connection reset or refused is the network's: a read may ask again. A refusal by policy, or an end
      // of the job's own (cancel, deadline), is not.
      if (!signal.aborted && (!(err instanceof FetchFailure) || err.kind === "network")) throw new BrokenRead(err);
      throw failure(err);
    }
  };

  /** One window: the answer to the open when it is the one asked for, else a checked range request. */
  const fetchWindow = async (first: number, last: number, abandoned: AbortSignal): Promise<OriginBody> => {
    if (opening && opening.first === first && !opening.body.destroyed && opening.last <= last) {
      const kept = opening;
      opening = null;
      return kept;
    }
    const res = await request({ start: first, end: last }, abandoned);
    const verdict = checkOrigin(facts, res, { start: first, end: last }, opts.maxInputBytes);
    if (verdict.kind === "serve" && verdict.last <= last)
      return { body: res, first: verdict.first, last: verdict.last };
    res.destroy();
    if (verdict.kind === "changed")
      throw ended("INPUT_CHANGED", `Input "${name}" changed while the job read it (${verdict.why}): run the job again`);
    throw ended(
      "INPUT_FETCH_FAILED",
      `Input "${name}" could not be read by range any more: its origin stopped serving ranges`,
    );
  };

  const copyWhole = async (): Promise<void> => {
    try {
      const got = await safeDownload(input.url, input.copyPath, {
        ...opts.fetch,
        trusted: input.trusted,
        maxBytes: opts.maxCopiedInputBytes,
        truncate: opts.truncateCopies,
        timeoutMs: Math.max(1, opts.deadline - Date.now()),
        signal: opts.canceled,
      });
      origin.originBytes += got.bytes;
      copiedTo = input.copyPath;
      facts = { size: got.bytes, etag: null, lastModified: null };
    } catch (err) {
      throw failure(err);
    }
  };

  const origin: InputOrigin = {
    name,
    facts: () => facts,
    copiedTo: () => copiedTo,
    originBytes: 0,
    failure,
    async open() {
      const asked = { start: 0, end: FIRST_WINDOW_BYTES - 1 };
      // The open is not asked again: a job whose origin fails its first answer fails at once.
      const res = await request(asked, opts.canceled).catch((err) => {
        throw failure(err);
      });
      const verdict = checkOrigin(null, res, asked, opts.maxInputBytes);
      if (verdict.kind === "serve") {
        facts = verdict.facts;
        opening = { body: res, first: verdict.first, last: verdict.last };
        // Held for ffmpeg's first read, not longer: an origin drops an idle connection in time.
        setTimeout(() => origin.close(), OPENING_KEPT_MS).unref();
        return;
      }
      res.destroy();
      if (verdict.kind === "too_large")
        throw ended(
          "INPUT_FETCH_FAILED",
          `Input "${name}" could not be fetched: larger than the ${opts.maxInputBytes}-byte limit`,
        );
      if (verdict.kind === "past_end")
        facts = { size: verdict.size, etag: null, lastModified: null }; // an empty file
      else await copyWhole();
    },
    async *read(first, last, abandoned) {
      let window = FIRST_WINDOW_BYTES;
      let next: Promise<OriginBody> | null = null;
      let nextFrom = first;
      let retries = 0;
      const isStream = (at: number) => at - first >= SEQUENTIAL_AFTER_BYTES || quickestAnswerMs >= SLOW_ANSWER_MS;
      const ask = (from: number) => {
        nextFrom = from;
        next = fetchWindow(from, Math.min(last, from + window - 1), abandoned);
        next.catch(() => {}); // its failure matters only once it is its turn
        if (isStream(from)) window = Math.min(window * 2, MAX_WINDOW_BYTES);
      };
      // A read the network broke (a reset mid-body, a refused connection) is asked again from where it broke,
      // as a robust reader does, up to MAX_READ_RETRIES times in a row (a window read whole starts the count
      // again: a long read of a flaky origin is not failed by breaks far apart); each answer is checked as the
      // first was.
      const askAgain = async (err: unknown, from: number) => {
        const ours = abandoned.aborted || opts.canceled.aborted || Date.now() >= opts.deadline - DEADLINE_SLACK_MS;
        if (ours || retries >= MAX_READ_RETRIES || !isBrokenRead(err)) throw failure(err);
        retries++;
        await new Promise((r) => setTimeout(r, READ_RETRY_DELAY_MS * retries));
        ask(from);
      };
      let current: OriginBody | null = null;
      // A read ffmpeg abandons (or the server gives up on) lets go of what it holds at once.
      const letGo = () => current?.body.destroy();
      abandoned.addEventListener("abort", letGo, { once: true });
      try {
        ask(first);
        while (next) {
          try {
            current = await (next as Promise<OriginBody>);
          } catch (err) {
            next = null;
            await askAgain(err, nextFrom);
            continue;
          }
          next = null;
          const after = current.last + 1;
          const size = current.last - current.first + 1;
          const aheadFrom = size <= EAGER_WINDOW_BYTES ? current.first : current.first + size / 2;
          let at = current.first;
          try {
            for await (const chunk of current.body as AsyncIterable<Buffer>) {
              at += chunk.length;
              if (next === null && after <= last && at >= aheadFrom && isStream(at)) ask(after);
              yield chunk;
            }
          } catch (err) {
            // What was asked ahead is asked again after the broken part.
            (next as Promise<OriginBody> | null)?.then(
              (w) => w.body.destroy(),
              () => {},
            );
            next = null;
            await askAgain(err, at);
            continue;
          }
          retries = 0;
          if (next === null && after <= last) ask(after);
        }
      } finally {
        abandoned.removeEventListener("abort", letGo);
        current?.body.destroy();
        (next as Promise<OriginBody> | null)?.then(
          (w) => w.body.destroy(),
          () => {},
        );
      }
    },
    close() {
      opening?.body.destroy();
      opening = null;
    },
  };
  return origin;
}

/** Times in a row a read may be asked again after the network broke it; the pause before each grows by this. */
const MAX_READ_RETRIES = 3;
const READ_RETRY_DELAY_MS = 200;

/** A request the network broke before its answer (a reset, a refused connection). */
class BrokenRead extends Error {
  constructor(cause: unknown) {
    super("network error", { cause });
  }
}

/** Whether `err` is the network's: a request it broke, or a body cut off (a reset, a connection closed mid-answer). */
function isBrokenRead(err: unknown): boolean {
  if (err instanceof BrokenRead) return true;
  const code = (err as { code?: unknown } | null)?.code;
  return (
    err instanceof Error &&
    (code === "ECONNRESET" || code === "EPIPE" || code === "ERR_STREAM_PREMATURE_CLOSE" || err.message === "aborted")
  );
}
