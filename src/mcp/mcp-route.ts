import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Context } from "hono";
import type { AppEnv } from "../api/app-env.ts";
import { type ApiCaller, apiCallerFor } from "./api-caller.ts";
import { callKey, cancelCall, linkCallToJob } from "./mcp-calls.ts";
import { buildMcpServer } from "./mcp-server.ts";
import { segment } from "./tool-answers.ts";

/** The app's own fetch, in the request's bindings and execution context. */
type AppFetch = (request: Request, c: Context<AppEnv>) => Response | Promise<Response>;

const SESSION_HEADER = "Mcp-Session-Id";
/** A batch may carry many notifications; each cancellation costs D1 writes, so only this many are read. */
const MAX_CANCELS_PER_REQUEST = 16;
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * `POST /mcp`: the MCP server (Streamable HTTP), behind the API key as every /v1 route. Nothing is
 * held between requests: each builds its server and transport. The session id named at `initialize`
 * holds no state either; it only keeps one client's call ids apart from another's, so that a
 * `notifications/cancelled` (a request of its own) finds the job its call created (src/mcp/mcp-calls.ts).
 * GET (a stream for server-initiated messages) and DELETE (ending a session) are 405: there is nothing
 * to send unasked and no session to end.
 */
export function mcpHandler(appFetch: AppFetch) {
  return async (c: Context<AppEnv>) => {
    if (c.req.method !== "POST") {
      return c.json({ jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed" }, id: null }, 405, {
        Allow: "POST",
      });
    }
    const text = await c.req.text();
    const messages = jsonRpcMessages(text);
    const account = c.get("account");
    const api = apiCallerFor(
      async (request) => appFetch(request, c),
      new URL(c.req.url).origin,
      c.req.header("Authorization") ?? "",
      c.req.raw.signal,
    );
    const initializing = messages.some((m) => m.method === "initialize");
    const presented = c.req.header(SESSION_HEADER) ?? "";
    const sessionId = initializing ? crypto.randomUUID() : SESSION_ID.test(presented) ? presented : null;
    const now = () => new Date();

    if (sessionId) {
      const cancels = messages.filter(
        (m) => m.method === "notifications/cancelled" && isRequestId(m.params?.requestId),
      );
      for (const m of cancels.slice(0, MAX_CANCELS_PER_REQUEST)) {
        if (!isRequestId(m.params?.requestId)) continue;
        const jobId = await cancelCall(c.env.DB, account.id, callKey(sessionId, m.params.requestId), now());
        if (jobId) await cancelJob(api, jobId);
      }
    }
    const server = buildMcpServer({
      api,
      jobCreated: async (requestId, jobId) => {
        if (!sessionId) return;
        const cancelledFirst = await linkCallToJob(c.env.DB, account.id, callKey(sessionId, requestId), jobId, now());
        if (cancelledFirst) await cancelJob(api, jobId);
      },
    });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    const forwarded = new Request(c.req.raw.url, { method: "POST", headers: c.req.raw.headers, body: text });
    const res = await transport.handleRequest(forwarded);
    if (!initializing || !sessionId) return res;
    const headers = new Headers(res.headers);
    headers.set(SESSION_HEADER, sessionId);
    return new Response(res.body, { status: res.status, headers });
  };
}

async function cancelJob(api: ApiCaller, jobId: string) {
  // A job that ended meanwhile answers 409: nothing left to cancel.
  await api("POST", `/v1/jobs/${segment(jobId)}/cancel`);
}

type Message = { method?: unknown; params?: { requestId?: unknown } };

/** The body's JSON-RPC messages (one, or a batch); none when it is not JSON (the transport says so). */
function jsonRpcMessages(text: string): Message[] {
  try {
    const parsed: unknown = JSON.parse(text);
    const list = Array.isArray(parsed) ? parsed : [parsed];
    return list.filter((m): m is Message => typeof m === "object" && m !== null);
  } catch {
    return [];
  }
}

function isRequestId(id: unknown): id is string | number {
  return (typeof id === "string" && id.length <= 128) || (typeof id === "number" && Number.isFinite(id));
}
