import type http from "node:http";
import type { Readable } from "node:stream";
import { FetchFailure, sendToUrl } from "./safe-fetch.ts";
import { watchTransfer, type TransferLimits, type TransferWatch } from "./transfer-watch.ts";

/** What is kept of a destination's refusal (S3's XML error names its Code and Message in its first lines). */
export const ANSWER_CHARS = 300;

export class DestinationRefused extends Error {}

export type DestinationContext = {
  net: Parameters<typeof sendToUrl>[2];
  limits: TransferLimits;
  /** The job's deadline (epoch ms): no send outlives the job's own time limit. */
  deadline: number;
  canceled: AbortSignal;
};

/**
 * How much of a 2xx answer is read: none (a PUT's headers say everything: its status and ETag), or
 * a document up to `maxChars`, until `complete` matches (S3 may keep a completion's answer open,
 * sending spaces while it works, then its result or an error: the closing tag is the end).
 */
export type AnswerWanted = { maxChars: number; complete: RegExp } | null;

/**
 * One request to a client's storage under transfer-watch.ts's limits and the job's deadline: the
 * answer's status, ETag and the start of its body, or the refusal it was. A 3xx is a refusal (never
 * followed: the body went once). A refusal's body is read for at most ANSWER_CHARS and at most the
 * idle limit, a 2xx body only as `wanted` says: nothing the destination sends can hold the send longer.
 */
export async function destinationRequest(
  method: "PUT" | "POST",
  url: string,
  headers: Record<string, string>,
  body: Readable,
  c: DestinationContext,
  wanted: AnswerWanted = null,
): Promise<{ etag: string | null; body: string }> {
  const watch = watchTransfer(c.limits, c.deadline);
  const signal = AbortSignal.any([watch.signal, c.canceled]);
  const host = new URL(url).host;
  const refused = (fallback: string) => new DestinationRefused(`${host}: ${watch.reason() ?? fallback}`);
  body.on("data", (chunk: Buffer | string) => watch.sent(chunk.length));
  body.on("end", () => watch.bodySent());
  try {
    let res: http.IncomingMessage;
    try {
      res = await sendToUrl(method, url, c.net, signal, headers, body);
    } catch (err) {
      body.destroy();
      if (watch.reason()) throw refused("");
      throw new DestinationRefused(err instanceof FetchFailure ? err.message : "network error");
    }
    watch.received();
    const status = res.statusCode ?? 0;
    const etag = typeof res.headers.etag === "string" ? res.headers.etag : null;
    if (status >= 200 && status < 300) {
      if (!wanted) {
        res.destroy();
        return { etag, body: "" };
      }
      const answer = await readAnswer(res, wanted.maxChars, wanted.complete, watch, signal, null);
      if (answer === null) throw refused("its answer broke off");
      return { etag, body: answer };
    }
    // A refusal is short: what arrives of it within the idle limit is what the job's error repeats.
    const answer = (await readAnswer(res, ANSWER_CHARS, null, watch, signal, c.limits.idleMs)) ?? "";
    const text = said(answer);
    throw new DestinationRefused(`${host} answered HTTP ${status}${text ? `: ${text}` : ""}`);
  } finally {
    watch.close();
  }
}

/**
 * Reads an answer's body up to `maxChars` or `complete`, then lets the connection go. Resolves with
 * the text, or null when it broke off or a limit stopped it; with `timeoutMs`, with what came by then.
 */
function readAnswer(
  res: http.IncomingMessage,
  maxChars: number,
  complete: RegExp | null,
  watch: TransferWatch,
  signal: AbortSignal,
  timeoutMs: number | null,
): Promise<string | null> {
  return new Promise((resolve) => {
    let text = "";
    let settled = false;
    const done = (result: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener("abort", aborted);
      res.removeAllListeners("data");
      res.destroy();
      resolve(result);
    };
    const aborted = () => done(timeoutMs === null ? null : text);
    const timer = timeoutMs === null ? undefined : setTimeout(() => done(text), timeoutMs);
    if (signal.aborted) return aborted();
    signal.addEventListener("abort", aborted, { once: true });
    res.on("data", (chunk: Buffer) => {
      watch.received();
      text += chunk.toString("utf8");
      if (text.length >= maxChars || complete?.test(text)) done(text.slice(0, maxChars));
    });
    res.on("end", () => done(text));
    res.on("error", () => done(timeoutMs === null ? null : text));
    res.on("aborted", () => done(timeoutMs === null ? null : text));
  });
}

export const said = (answer: string) => answer.replace(/\s+/g, " ").trim().slice(0, ANSWER_CHARS);
