import type { Context } from "hono";
import type { z } from "zod";
import { API_ERRORS, type ApiErrorCode } from "./error-codes.ts";

export type ErrorDetail = { path: string[]; message: string; code: string };

/** Thrown by routes and middleware; the app's error handler turns it into the error envelope. */
export class ApiError extends Error {
  readonly code: ApiErrorCode;
  readonly details?: ErrorDetail[];
  readonly extra?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(
    code: ApiErrorCode,
    message: string,
    opts: { details?: ErrorDetail[]; extra?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.code = code;
    this.details = opts.details;
    this.extra = opts.extra;
    this.headers = opts.headers;
  }
}

export function errorResponse(c: Context, err: ApiError): Response {
  const body: Record<string, unknown> = { error: err.message, code: err.code, ...err.extra };
  if (err.details) body.details = err.details;
  return c.json(body, API_ERRORS[err.code].status, err.headers);
}

/** Zod issues as the spec's `details`: paths are arrays of strings, array indices included. */
export function detailsFromZod(issues: readonly z.core.$ZodIssue[], prefix: string[] = []): ErrorDetail[] {
  return issues.map((issue) => ({
    path: [...prefix, ...issue.path.map((p) => String(p))],
    message: issue.message,
    code: issue.code,
  }));
}

/** A 400 whose `error` names the first problem (where, and what), with every problem in `details`. */
export function invalidRequest(details: ErrorDetail[], summary?: string): ApiError {
  const first = details[0];
  const where = first?.path.length ? first.path.join(".") : "body";
  const extra =
    details.length > 1 ? ` (and ${details.length - 1} more problem${details.length > 2 ? "s" : ""} in details)` : "";
  return new ApiError(
    "INVALID_REQUEST",
    summary ?? (first ? `Invalid request: ${where}: ${first.message}${extra}` : "The request is invalid"),
    { details },
  );
}

/** A list's `cursor` that is not one this API handed out. */
export const unknownCursor = (): ApiError =>
  invalidRequest([{ path: ["query", "cursor"], message: "unknown cursor: pass nextCursor as given", code: "custom" }]);
