import type { ApiAnswer } from "./api-caller.ts";
import { UUID_PATTERN } from "../api/schemas/common.ts";
import type { ToolAnswer } from "./tool.ts";

/** The API's answer as a tool's: its body when it succeeded, its error envelope's code and message when not. */
export function answerOf(answer: ApiAnswer): ToolAnswer {
  if (answer.status < 400) return { ok: true, value: answer.body };
  const body = (typeof answer.body === "object" && answer.body !== null ? answer.body : {}) as Record<string, unknown>;
  return {
    ok: false,
    code: typeof body.code === "string" ? body.code : `HTTP_${answer.status}`,
    message: typeof body.error === "string" ? body.error : String(answer.body ?? answer.status),
    ...(body.details ? { details: body.details } : {}),
  };
}

/** A tool's own refusal of its arguments, shaped as the API's INVALID_REQUEST. */
export function invalidArguments(path: string, message: string): ToolAnswer {
  return {
    ok: false,
    code: "INVALID_REQUEST",
    message: "The tool's arguments are not valid",
    details: [{ path: [path], message, code: "custom" }],
  };
}

/**
 * A value a tool puts into an API path: a string that matches `pattern` (a UUID, a template's name),
 * else null. Never `.` or `..`, a slash or anything URL normalisation would move the request with.
 */
export function pathValue(value: unknown, pattern: RegExp): string | null {
  return typeof value === "string" && pattern.test(value) ? value : null;
}

/** A tool's `id` argument as a UUID for the API's path, or the tool's refusal of it. */
export function idArgument(args: Record<string, unknown>): { id: string } | { refused: ToolAnswer } {
  const id = pathValue(args.id, UUID_PATTERN);
  return id ? { id } : { refused: invalidArguments("id", "must be a UUID") };
}
