import type { z } from "zod";
import type { API_ERRORS, ApiErrorCode } from "./error-codes.ts";
import { ref, type SchemaName } from "./openapi-components.ts";

/** The responses and bodies route declarations are made of: named schemas by `$ref`, errors by their codes. */

const ERROR_DESCRIPTIONS = {
  400: "Invalid request (`INVALID_REQUEST`: `details` says where)",
  401: "Missing or invalid API key (`UNAUTHORIZED`)",
  403: "The key's account may not do this (`FORBIDDEN`)",
  404: "No such resource for this account (`NOT_FOUND`)",
  409: "Conflict with the resource's state",
  413: "Body over 1 MiB (`PAYLOAD_TOO_LARGE`)",
  429: "Too many requests for this key (`RATE_LIMITED`; see `Retry-After`)",
  500: "Internal error (`INTERNAL`)",
} as const;

/** The statuses a route names its error codes under; 401, 429 and 500 every authenticated route can answer. */
type NamedErrorStatus = 400 | 403 | 404 | 409 | 413;
type ErrorCodesOf<S extends number> = {
  [C in ApiErrorCode]: (typeof API_ERRORS)[C]["status"] extends S ? C : never;
}[ApiErrorCode];

/** Response headers as the document lists them. */
type Headers = Record<string, { schema: { type: "string" | "integer" }; description: string }>;

/** A JSON answer whose body is a named schema. */
export const json = (name: SchemaName, description: string, extra: { headers?: Headers } = {}) => ({
  description,
  content: { "application/json": { schema: ref(name) } },
  ...extra,
});

function errorResponse(status: keyof typeof ERROR_DESCRIPTIONS, codes: readonly ApiErrorCode[] = []) {
  const description = codes.length
    ? `${ERROR_DESCRIPTIONS[status].split(" (")[0]}: ${codes.join(", ")}`
    : ERROR_DESCRIPTIONS[status];
  const retryAfter: Headers = {
    "Retry-After": { schema: { type: "integer" }, description: "Seconds until a request may succeed" },
  };
  return { ...json("Error", description), ...(status === 429 ? { headers: retryAfter } : {}) };
}

/**
 * An authenticated route's error answers: the codes it names, by status (each status's codes from the
 * registry, src/api/error-codes.ts), and the 401, 429 and 500 any such route can answer.
 */
export function errors(named: { [S in NamedErrorStatus]?: readonly ErrorCodesOf<S>[] } = {}) {
  const listed = Object.fromEntries(
    Object.entries(named).map(([status, codes]) => [status, errorResponse(Number(status) as NamedErrorStatus, codes)]),
  );
  return { ...listed, 401: errorResponse(401), 429: errorResponse(429), 500: errorResponse(500) };
}

/** 503 `RUNNER_UNAVAILABLE`: the routes that must ask a runner (capabilities, the platform report). */
export const runnerUnavailable = {
  503: {
    description: "No runner could be asked (`RUNNER_UNAVAILABLE`)",
    content: { "application/json": { schema: ref("Error") } },
  },
};

/** A required JSON body validated against `schema`, which the document names (openapi-components.ts). */
export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  required: true,
  content: { "application/json": { schema } },
});
