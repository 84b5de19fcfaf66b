import { invalidRequest } from "../api/api-error.ts";
import type { TemplateJobRequest, TemplateVariable } from "../api/schemas/templates.ts";
import { fillTemplate, usedVariables } from "./fill-template.ts";
import { variableValues } from "./variable-values.ts";
import { readTemplate } from "./template-store.ts";

/** Which template, which version, a job was made from (the job keeps it: `template` on the job). */
export type TemplateRef = { name: string; version: number };

/**
 * The job body a template makes with these values: the version asked for (else the newest), each
 * value checked against its variable, put in. The body then goes the way of any job body, checked
 * whole by the same schema and policy (src/api/create-job-validation.ts), so nothing a variable
 * carries is trusted for having come through a template.
 */
export async function jobFromTemplate(
  db: D1Database,
  accountId: string,
  req: TemplateJobRequest,
): Promise<{ body: unknown; template: TemplateRef }> {
  const row = await readTemplate(db, accountId, req.template, req.version);
  if (!row) {
    const which = req.version ? ` with version ${req.version}` : "";
    throw invalidRequest([
      {
        path: [req.version ? "version" : "template"],
        message: `no template named ${req.template}${which}`,
        code: "custom",
      },
    ]);
  }
  const variables = JSON.parse(row.variables_json) as Record<string, TemplateVariable>;
  const job = JSON.parse(row.job_json) as { inputs?: Record<string, unknown> };
  const own = job.inputs ?? {};
  const sent = req.inputs ?? {};
  // An input sent in place of the template's own drops it, and with it the variables only it used.
  const kept = Object.fromEntries(Object.entries(own).filter(([name]) => !Object.hasOwn(sent, name)));
  // A job with a list of inputs (`input`) has no map to replace names in: it is used as it is.
  const base = job.inputs ? { ...job, inputs: kept } : job;
  const got = variableValues(variables, req.vars ?? {}, usedVariables(base));
  const strangers = Object.keys(sent).filter((name) => !Object.hasOwn(own, name));
  const issues = [
    ...("issues" in got ? got.issues : []),
    ...strangers.map((name) => ({ path: ["inputs", name], message: "the template's job has no input of this name" })),
  ];
  if (issues.length || "issues" in got) throw invalidRequest(issues.map((i) => ({ ...i, code: "custom" })));
  const result = fillTemplate(base, got.values);
  if ("issues" in result) throw invalidRequest(result.issues.map((i) => ({ ...i, code: "custom" })));
  const filled = result.body as { inputs?: Record<string, unknown> };
  return {
    body: req.inputs ? { ...filled, inputs: { ...filled.inputs, ...sent } } : filled,
    template: { name: row.name, version: row.version },
  };
}
