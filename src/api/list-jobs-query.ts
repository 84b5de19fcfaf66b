import { detailsFromZod, invalidRequest } from "./api-error.ts";
import { listJobsQuerySchema, METADATA_FILTER, METADATA_KEY_PATTERN } from "./schemas.ts";

/**
 * `GET /v1/jobs` query: the usual parameters (strict: a typo is a 400) plus any number of
 * `metadata[key]=value` filters, which the schema cannot list in advance.
 */
export function parseListQuery(params: URLSearchParams) {
  const rest: Record<string, string> = {};
  const metadata: Record<string, string> = {};
  for (const [name, value] of params) {
    const m = METADATA_FILTER.exec(name);
    if (!m) rest[name] = value;
    else if (!METADATA_KEY_PATTERN.test(m[1])) {
      throw invalidRequest([{ path: [name], message: "metadata keys are letters, digits and _ . : -", code: "custom" }]);
    } else metadata[m[1]] = value;
  }
  const parsed = listJobsQuerySchema.safeParse(rest);
  if (!parsed.success) throw invalidRequest(detailsFromZod(parsed.error.issues));
  return { query: parsed.data, metadata };
}
