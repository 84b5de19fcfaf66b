import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { Tool, ToolAnswer, ToolContext } from "./tool.ts";
import { MCP_TOOLS } from "./tools/all-tools.ts";

/** What the server is told of the call's surroundings: the API as the caller, and how to tie a job to a call. */
export type McpCallDeps = Pick<ToolContext, "api"> & {
  /** Aborted when the client stops reading (it went away): waits end. */
  signal: AbortSignal;
  /** Ties a job to the call with this JSON-RPC id (a no-op where the client has no session). */
  jobCreated: (requestId: string | number, jobId: string) => Promise<void>;
};

const TOOLS_BY_NAME = new Map(MCP_TOOLS.map((t) => [t.name, t]));

let listed: ReturnType<typeof renderTools> | null = null;

/**
 * The tools as `tools/list` lists them, their input schemas the API's zod schemas as JSON Schema:
 * rendered on the first listing, not when the module loads (a cold start of any request would pay it).
 */
export function listedTools() {
  listed ??= renderTools();
  return listed;
}

function renderTools() {
  return MCP_TOOLS.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: z.toJSONSchema(tool.input, { io: "input", unrepresentable: "any" }) as {
      type: "object";
      [key: string]: unknown;
    },
    annotations: {
      title: tool.title,
      readOnlyHint: tool.readOnly ?? false,
      destructiveHint: tool.destructive ?? false,
      openWorldHint: false,
    },
  }));
}

/**
 * One MCP server for one HTTP request (Streamable HTTP without held state: the Worker may serve the
 * next request from another isolate). The low-level Server, not McpServer: a tool's arguments go to
 * the API unparsed, so a mistake in them is the API's INVALID_REQUEST with its details, not the SDK's
 * own wording.
 */
export function buildMcpServer(deps: McpCallDeps): Server {
  const server = new Server(
    { name: "ffjobs", version: "1" },
    {
      capabilities: { tools: {} },
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
      instructions:
        "ffjobs runs ffmpeg and ffprobe jobs. Read list_presets (and get_policy for raw commands), check a command with validate_job, run it with run_job or run_preset; a job still running when the call returns is waited for with wait_for_job. Outputs come back with download URLs.",
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listedTools() }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = TOOLS_BY_NAME.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `No tool named ${request.params.name}`);
    const progressToken = extra._meta?.progressToken;
    const ctx: ToolContext = {
      api: deps.api,
      signal: AbortSignal.any([extra.signal, deps.signal]),
      jobCreated: (jobId) => deps.jobCreated(extra.requestId, jobId),
      progress: async (report) => {
        if (progressToken === undefined) return;
        await extra
          .sendNotification({ method: "notifications/progress", params: { progressToken, ...report } })
          .catch(() => {});
      },
    };
    return toolResult(await runTool(tool, request.params.arguments ?? {}, ctx));
  });
  return server;
}

async function runTool(tool: Tool, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolAnswer> {
  try {
    return await tool.run(args, ctx);
  } catch (err) {
    console.error(`mcp tool ${tool.name}`, err);
    return { ok: false, code: "INTERNAL", message: "Internal error" };
  }
}

/** A tool's answer as MCP has it: the JSON as text and as structured content; an error flagged, its code first. */
export function toolResult(answer: ToolAnswer): CallToolResult {
  if (answer.ok) {
    const value = answer.value;
    // Structured content is an object; an answer without a body (a 204: deleted) is said in words.
    if (typeof value !== "object" || value === null || Array.isArray(value))
      return { content: [{ type: "text", text: value === null ? "Done." : JSON.stringify(value) }] };
    return {
      content: [{ type: "text", text: JSON.stringify(value) }],
      structuredContent: value as Record<string, unknown>,
    };
  }
  const { ok: _, ...error } = answer;
  return {
    isError: true,
    content: [{ type: "text", text: `${answer.code}: ${answer.message}${detailsText(answer.details)}` }],
    structuredContent: error,
  };
}

function detailsText(details: unknown): string {
  if (!Array.isArray(details) || details.length === 0) return "";
  return ` (${details.map((d: { path?: string[]; message?: string }) => `${(d.path ?? []).join(".")}: ${d.message}`).join("; ")})`;
}
