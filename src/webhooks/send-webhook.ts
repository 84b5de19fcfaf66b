import { signedHeaders } from "./signing.ts";
import { webhookUrlProblem } from "./webhook-url.ts";
import type { AttemptResult } from "./delivery-store.ts";

export const WEBHOOK_TIMEOUT_MS = 10_000;

/**
 * Error kinds in the log. A refused connection, a DNS failure and a timeout are all `no_response`:
 * telling them apart would turn webhooks into a port scanner. `blocked` depends only on the URL.
 */
export type DeliveryErrorKind = "blocked" | "no_response" | "redirect" | "http_error";

/** What each error kind means, in the words both the test endpoint and the delivery log use. */
export const DELIVERY_ERROR_TEXT: Record<DeliveryErrorKind, string> = {
  blocked:
    "Refused by policy: the URL points at a private or local address, so nothing was sent (operators can allow hosts with ALLOWED_PRIVATE_HOSTS)",
  no_response: "The receiver could not be reached or did not answer in time",
  redirect: "The receiver answered with a redirect, which is not followed",
  http_error: "The receiver answered with an error status",
};

export type WebhookMessage = { url: string; eventId: string; body: string; secrets: string[] };

/**
 * One signed POST. Success is a 2xx; redirects are not followed and count as failures. The
 * receiver's response body is never read.
 */
export async function sendWebhook(
  msg: WebhookMessage,
  opts: { allowedPrivateHosts: readonly string[]; now: () => Date; timeoutMs?: number; fetcher?: typeof fetch },
): Promise<AttemptResult & { ok: boolean }> {
  const started = Date.now();
  const done = (ok: boolean, httpStatus: number | null, errorKind: DeliveryErrorKind | null) => ({
    ok,
    httpStatus,
    errorKind,
    latencyMs: Date.now() - started,
  });
  if (webhookUrlProblem(msg.url, opts.allowedPrivateHosts)) return done(false, null, "blocked");
  const headers = await signedHeaders(msg.secrets, msg.eventId, Math.floor(opts.now().getTime() / 1000), msg.body);
  try {
    const res = await (opts.fetcher ?? fetch)(msg.url, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": "ffjobs-webhooks/1", ...headers },
      body: msg.body,
      redirect: "manual",
      signal: AbortSignal.timeout(opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS),
    });
    await res.body?.cancel();
    if (res.status >= 200 && res.status < 300) return done(true, res.status, null);
    return done(false, res.status, res.status >= 300 && res.status < 400 ? "redirect" : "http_error");
  } catch {
    return done(false, null, "no_response");
  }
}
