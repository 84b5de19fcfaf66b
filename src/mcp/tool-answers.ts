import type { ApiAnswer } from "./api-caller.ts";
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

/** A path segment from a client's argument: an id the API then checks (a UUID), never a path of its own. */
export function segment(value: unknown): string {
  return encodeURIComponent(typeof value === "string" ? value : String(value ?? ""));
}
