import type { TemplateVariable } from "../api/schemas/templates.ts";
import type { TemplateRow } from "./template-store.ts";

/** A template's version as the API shows it. */
export function templateView(row: TemplateRow) {
  return {
    name: row.name,
    version: row.version,
    description: row.description,
    variables: JSON.parse(row.variables_json) as Record<string, TemplateVariable>,
    job: JSON.parse(row.job_json) as Record<string, unknown>,
    createdAt: row.created_at,
  };
}
