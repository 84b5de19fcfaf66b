// The API calls the typed client has no method for (an upload's parts and completion, for the smoke
// test's own steps), answering JSON or throwing the client's FfjobsError.
import { FfjobsError, type ApiErrorBody } from "../../client/src/index.ts";

/** `T`: the answer's shape as docs/api.md gives it for that path (taken on trust, as the typed client does). */
export type ApiCall = <T>(method: "GET" | "POST" | "DELETE", path: string, body?: unknown) => Promise<T>;

export function apiCaller(baseUrl: string, apiKey: string, doFetch: typeof fetch): ApiCall {
  const base = baseUrl.replace(/\/+$/, "");
  return async <T>(method: "GET" | "POST" | "DELETE", path: string, body?: unknown): Promise<T> => {
    const headers: Record<string, string> = { Authorization: `Bearer ${apiKey}` };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const res = await doFetch(`${base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = { error: text.slice(0, 300) || res.statusText, code: `HTTP_${res.status}` };
    }
    if (!res.ok)
      throw new FfjobsError(
        res.status,
        (parsed ?? { error: res.statusText, code: `HTTP_${res.status}` }) as ApiErrorBody & Record<string, unknown>,
      );
    return parsed as T;
  };
}
