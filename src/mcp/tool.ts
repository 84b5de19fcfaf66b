import type { z } from "zod";
import type { ApiCaller } from "./api-caller.ts";

/** What a tool is given besides its arguments. */
export type ToolContext = {
  api: ApiCaller;
  /** Tells the client how a job is getting on (MCP progress), when it asked with a progress token. */
  progress: (report: { progress: number; total?: number; message: string }) => Promise<void>;
  /** Ties the job a tool just created to its call, so the client's cancellation of the call cancels it. */
  jobCreated: (jobId: string) => Promise<void>;
  /** Aborted when the client goes away or cancels the call. */
  signal: AbortSignal;
};

/** A tool's answer: the API's body as it gave it, or the API's error (code and message). */
export type ToolAnswer = { ok: true; value: unknown } | { ok: false; code: string; message: string; details?: unknown };

/**
 * One MCP tool. `input` is what the tool advertises (the API's own zod schemas, as JSON Schema); the
 * arguments are not parsed against it here but sent to the API, which validates them as it validates a
 * request, so a mistake comes back as the API's INVALID_REQUEST with its details.
 */
export type Tool = {
  name: string;
  title: string;
  description: string;
  input: z.ZodObject;
  readOnly?: boolean;
  destructive?: boolean;
  run: (args: Record<string, unknown>, ctx: ToolContext) => Promise<ToolAnswer>;
};
