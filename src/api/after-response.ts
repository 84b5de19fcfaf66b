import type { Context } from "hono";

/**
 * Work that may finish after the response: kept alive by the request's execution context. (Where
 * there is none, as when the app is called directly, the promise simply runs on its own.)
 */
export function afterResponse(c: Context, work: Promise<unknown>): void {
  const settled = work.catch((err) => console.error("background work failed", err));
  try {
    c.executionCtx.waitUntil(settled);
  } catch {
    // no execution context: nothing to extend
  }
}
