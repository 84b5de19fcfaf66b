/** One answer of the HTTP API: its status and its JSON body (null when it had none). */
export type ApiAnswer = { status: number; body: unknown };

/** Calls the HTTP API as the MCP client's own key: `(method, path with query, JSON body?)`. */
export type ApiCaller = (method: string, path: string, body?: unknown) => Promise<ApiAnswer>;

/**
 * The MCP tools reach the service through its HTTP API, in the same invocation (`fetch` is the app's
 * own), under the caller's `Authorization`: every check the API makes (the key, its rate, the
 * account's scope, the argument policy, the body's validation) applies to a tool exactly as to a
 * request, and a tool's error is the API's.
 */
export function apiCallerFor(
  fetch: (request: Request) => Promise<Response>,
  origin: string,
  authorization: string,
  signal: AbortSignal,
): ApiCaller {
  return async (method, path, body) => {
    const headers: Record<string, string> = { Authorization: authorization };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const res = await fetch(
      new Request(`${origin}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      }),
    );
    return { status: res.status, body: parsedOrText(await res.text()) };
  };
}

function parsedOrText(text: string): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
