import { z } from "zod";
import { NAME_PATTERN, PROTOTYPE_NAME_MESSAGE, PROTOTYPE_NAMES } from "../../jobs/request/placeholders.ts";
import * as L from "../../jobs/request/limits.ts";

/**
 * The pieces every resource's schemas are made of. The API's request and response schemas are zod
 * schemas, one file per resource beside this one: requests are validated with them, the types the code
 * uses are inferred from them, and GET /openapi.json describes them (src/api/openapi-components.ts).
 */

export const FILE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
/** An input's, output's or scratch file's name: what a placeholder `{{name}}` says. */
export const name = z
  .string()
  .regex(NAME_PATTERN, "names are 1-64 letters, digits or _")
  .refine((n) => !PROTOTYPE_NAMES.has(n), PROTOTYPE_NAME_MESSAGE);
export const UUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
export const uuid = z.string().regex(UUID_PATTERN, "must be a UUID");
export const contentType = z
  .string()
  .max(255)
  .regex(/^[\w.+-]+\/[\w.+-]+$/, "must be a media type like video/mp4");
export const fileName = z
  .string()
  .max(L.MAX_FILE_NAME_CHARS)
  .regex(FILE_NAME_PATTERN, "a plain file name: letters, digits, . _ -, no slash, not starting with a dot");
// The scheme as a pattern (case-insensitive by hand: JSON Schema has no flags), so the document states it too.
export const httpUrl = z
  .string()
  .max(L.MAX_URL_LENGTH_CHARS)
  .regex(/^[Hh][Tt][Tt][Pp][Ss]?:\/\//, { message: "must be an http or https URL", abort: true })
  .refine((v) => URL.canParse(v), "must be a valid URL");
/** A time as the API writes it: ISO 8601 in UTC, to the millisecond. */
export const timestamp = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
export const binary = z.enum(["ffmpeg", "ffprobe"]);

/**
 * `{id}` in a path. Documented as a UUID's format (the pattern it is checked against says the same);
 * `param` is how a path or query field says how it is documented (src/api/openapi-parameters.ts).
 */
export const idParamSchema = z.object({ id: uuid.meta({ param: { schema: { type: "string", format: "uuid" } } }) });

/** A keyset page's query (`GET /v1/jobs`, `/v1/files`, `/v1/webhooks/deliveries`): how many, and where the last page ended. */
export const pageQuery = {
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(512).optional(),
};

/** The error envelope of every 4xx and 5xx answer (src/api/api-error.ts). */
export const errorSchema = z.object({
  error: z.string(),
  code: z.string(),
  /** 409s about a job's state (JOB_NOT_FINISHED, JOB_ALREADY_FINISHED): the status it is in. */
  status: z.string().optional(),
  details: z.array(z.object({ path: z.array(z.string()), message: z.string(), code: z.string() })).optional(),
});
