import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Context } from "hono";
import type { AppEnv } from "../api/app-env.ts";
import { type ApiCaller, apiCallerFor } from "./api-caller.ts";
import { callKey, cancelCall, linkCallToJob } from "./mcp-calls.ts";
import { buildMcpServer } from "./mcp-server.ts";
import { followed } from "./followed-stream.ts";

/** The app's own fetch, in the request's bindings and execution context. */
type AppFetch = (request: Request, c: Context<AppEnv>) => Response | Promise<Response>;

const SESSION_HEADER = "Mcp-Session-Id";
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const rpcError = (c: Context<AppEnv>, status: 400 | 405, code: number, message: string, headers = {}) =>
  c.json({ jsonrpc: "2.0", error: { code, message }, id: null }, status, headers);

/**
 * `POST /mcp`: the MCP server (Streamable HTTP), behind the API key as every /v1 route. Nothing is
 * held between requests: each builds its server and transport. The session id named at `initialize`
 * holds no state either; it only keeps one client's call ids apart from another's, so that a
 * `notifications/cancelled` (a request of its own) finds the job its call created (src/mcp/mcp-calls.ts).
 * One message per request: the protocol's 2025-06-18 revision has no batches, and a batch would let
 * one request run a hundred tools in one invocation. GET (a stream for server-initiated messages) and
 * DELETE (ending a session) are 405: there is nothing to send unasked and no session to end.
 */
export function mcpHandler(appFetch: AppFetch) {
  return async (c: Context<AppEnv>) => {
    if (c.req.method !== "POST") return rpcError(c, 405, -32000, "Method not allowed", { Allow: "POST" });
    const text = await c.req.text();
    const message = jsonRpcMessage(text);
    if (message === "batch")
      return rpcError(c, 400, -32600, "Send one JSON-RPC message per request: batches are not accepted");
    const account = c.get("account");
    const api = apiCallerFor(
      async (request) => appFetch(request, c),
      new URL(c.req.url).origin,
      c.req.header("Authorization") ?? "",
      c.req.raw.signal,
    );
    const initializing = message?.method === "initialize";
    const presented = c.req.header(SESSION_HEADER) ?? "";
    const sessionId = initializing ? crypto.randomUUID() : SESSION_ID.test(presented) ? presented : null;
    const now = () => new Date();

    // A cancellation is answered here, never handed to the SDK: it concerns a call another request is serving.
    if (message?.method === "notifications/cancelled") {
      const requestId = message.params?.requestId;
      if (sessionId && isRequestId(requestId)) {
        const jobId = await cancelCall(c.env.DB, account.id, await callKey(sessionId, requestId), now());
        if (jobId) await cancelJob(api, jobId);
      }
      return c.body(null, 202);
    }
    // Aborted when the client stops reading the answer: a tool waiting for a job then stops waiting.
    const gone = new AbortController();
    const server = buildMcpServer({
      api,
      signal: gone.signal,
      jobCreated: async (requestId, jobId) => {
        if (!sessionId || !isRequestId(requestId)) return;
        const key = await callKey(sessionId, requestId);
        if (await linkCallToJob(c.env.DB, account.id, key, jobId, now())) await cancelJob(api, jobId);
      },
    });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    const forwarded = new Request(c.req.raw.url, { method: "POST", headers: c.req.raw.headers, body: text });
    const res = await transport.handleRequest(forwarded);
    const headers = new Headers(res.headers);
    if (initializing && sessionId) headers.set(SESSION_HEADER, sessionId);
    return new Response(res.body ? followed(res.body, gone) : null, { status: res.status, headers });
  };
}

async function cancelJob(api: ApiCaller, jobId: string) {
  // A job that ended meanwhile answers 409: nothing left to cancel.
  await api("POST", `/v1/jobs/${encodeURIComponent(jobId)}/cancel`);
}

type Message = { method?: unknown; params?: { requestId?: unknown } };

/** The body's one JSON-RPC message; "batch" for an array; null when it is not JSON (the transport says so). */
function jsonRpcMessage(text: string): Message | "batch" | null {
  try {
    const parsed: unknown = JSON.parse(text);
    if (Array.isArray(parsed)) return "batch";
    return typeof parsed === "object" && parsed !== null ? (parsed as Message) : null;
  } catch {
    return null;
  }
}

/** A JSON-RPC id a call may be found by: a short string or a finite number. */
function isRequestId(id: unknown): id is string | number {
  return (typeof id === "string" && id.length <= 128) || (typeof id === "number" && Number.isFinite(id));
}
