import type { z } from "zod";
import { detailsFromZod, invalidRequest } from "./api-error.ts";
import { METADATA_KEY_PATTERN } from "./schemas/job-request.ts";
import { listJobsQuerySchema } from "./schemas/jobs.ts";
import { PROTOTYPE_NAME_MESSAGE, PROTOTYPE_NAMES } from "../jobs/request/placeholders.ts";
import { MAX_METADATA_ENTRIES } from "../jobs/request/limits.ts";
import type { Parameter } from "./openapi-parameters.ts";

/** `?metadata[key]=value` filters on the job list (all must match). */
const METADATA_FILTER = /^metadata\[([^\]]*)\]$/;

/** The filters as the document has them: one `deepObject` parameter, which the query's schema cannot list. */
export const METADATA_FILTER_PARAMETER: Parameter = {
  name: "metadata",
  in: "query",
  style: "deepObject",
  explode: true,
  schema: { type: "object", additionalProperties: { type: "string" } },
  description: `metadata[key]=value, at most ${MAX_METADATA_ENTRIES}; all must match`,
};

/**
 * `GET /v1/jobs` query: the usual parameters (strict: a typo is a 400) plus any number of
 * `metadata[key]=value` filters, which the schema cannot list in advance.
 */
export function parseListQuery(params: URLSearchParams) {
  const rest: Record<string, string> = {};
  const metadata: Record<string, string> = {};
  for (const [name, value] of params) {
    const m = METADATA_FILTER.exec(name);
    // Assigned to a plain object, `__proto__` would vanish (a filter silently dropped): refused by name.
    if (PROTOTYPE_NAMES.has(m ? m[1] : name))
      throw invalidRequest([{ path: ["query", name], message: PROTOTYPE_NAME_MESSAGE, code: "custom" }]);
    if (!m) rest[name] = value;
    else if (!METADATA_KEY_PATTERN.test(m[1])) {
      throw invalidRequest([
        { path: ["query", name], message: "metadata keys are letters, digits and _ . : -", code: "custom" },
      ]);
    } else metadata[m[1]] = value;
  }
  // A job has at most MAX_METADATA_ENTRIES labels, so more filters match nothing (and would pass D1's 100 bound parameters).
  if (Object.keys(metadata).length > MAX_METADATA_ENTRIES) {
    throw invalidRequest([
      {
        path: ["query"],
        message: `at most ${MAX_METADATA_ENTRIES} metadata filters (a job has at most ${MAX_METADATA_ENTRIES} metadata entries)`,
        code: "custom",
      },
    ]);
  }
  const parsed = listJobsQuerySchema.safeParse(rest);
  if (!parsed.success) throw invalidRequest(detailsFromZod(parsed.error.issues.map(withMetadataHint), ["query"]));
  return { query: parsed.data, metadata };
}

/** `?client=x` is how a client that ignores `style: deepObject` sends a metadata filter: say the form that works. */
function withMetadataHint(issue: z.core.$ZodIssue): z.core.$ZodIssue {
  if (issue.code !== "unrecognized_keys") return issue;
  const hint = issue.keys.map((k) => `metadata[${k}]=…`).join(", ");
  return { ...issue, message: `${issue.message} (to filter by metadata, send ${hint})` };
}
