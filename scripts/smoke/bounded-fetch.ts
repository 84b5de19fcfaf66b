// The smoke test's fetch: every request it makes (the typed client's too) ends within a deadline and
// reads at most a bounded answer. The smoke test points at a deployment it has not yet seen work: one
// that answers slowly, never, or endlessly must end it with a finding, not hang it or fill its memory
// (found by an attack pass: a server that trickled a byte a second held it forever; a 4 GiB error body
// grew it to 12 GB before it was killed).

/**
 * Longest any one request may take, answer read to its end: above the platform report's own bound in
 * the Worker (a container's cold start, 90 s, plus the report's 30 s: src/runner/runner-client.ts) and
 * a held wait (60 s).
 */
export const SMOKE_REQUEST_TIMEOUT_MS = 150_000;
/** Most an answer may hold: the smoke test reads JSON, a job's result (stdout ≤ 256 KiB), a 16 KB WAV and a playlist. */
export const SMOKE_MAX_ANSWER_BYTES = 32 * 1024 * 1024;

/** Statuses whose answers have no body (the Response constructor refuses one for them). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * No complete answer: too slow, or too large. A TypeError, as fetch's own network failures are, so the
 * steps that wait out a first deploy's cold start (cold-start.ts) treat it alike: tried again within
 * the smoke test's one budget, then a failure that says why.
 */
export class NoCompleteAnswer extends TypeError {}

export function boundedFetch(
  doFetch: typeof fetch,
  limits: { timeoutMs: number; maxBytes: number } = {
    timeoutMs: SMOKE_REQUEST_TIMEOUT_MS,
    maxBytes: SMOKE_MAX_ANSWER_BYTES,
  },
): typeof fetch {
  return async (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const where = `${init.method ?? (input instanceof Request ? input.method : "GET")} ${url.origin}${url.pathname}`;
    const deadline = new AbortController();
    const timer = setTimeout(
      () => deadline.abort(new NoCompleteAnswer(`no complete answer to ${where} within ${limits.timeoutMs / 1000} s`)),
      limits.timeoutMs,
    );
    // A deadline that outlives the request must not hold the process open.
    timer.unref();
    const signal = init.signal ? AbortSignal.any([init.signal, deadline.signal]) : deadline.signal;
    let res: Response;
    try {
      res = await doFetch(input, { ...init, signal });
    } catch (err) {
      clearTimeout(timer);
      throw err;
    }
    const declared = Number(res.headers.get("content-length"));
    if (declared > limits.maxBytes) {
      clearTimeout(timer);
      await res.body?.cancel().catch(() => {});
      throw new NoCompleteAnswer(
        `${where} answered HTTP ${res.status} with ${declared} bytes, more than the smoke test reads (${limits.maxBytes})`,
      );
    }
    if (!res.body || NULL_BODY_STATUSES.has(res.status)) return res;
    let seen = 0;
    const capped = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, out) {
          seen += chunk.byteLength;
          if (seen <= limits.maxBytes) return out.enqueue(chunk);
          const tooLarge = new NoCompleteAnswer(
            `${where} answered HTTP ${res.status} with more than ${limits.maxBytes} bytes, more than the smoke test reads`,
          );
          out.error(tooLarge);
          deadline.abort(tooLarge);
        },
        flush: () => clearTimeout(timer),
      }),
    );
    const bounded = new Response(capped, { status: res.status, statusText: res.statusText, headers: res.headers });
    Object.defineProperties(bounded, { url: { value: res.url }, redirected: { value: res.redirected } });
    return bounded;
  };
}
