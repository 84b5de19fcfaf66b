import { ApiError, type ErrorDetail, invalidRequest } from "../api/api-error.ts";
import { parseCreateJobBody } from "../api/create-job-validation.ts";
import { prepareJob } from "../api/prepare-job.ts";
import type { CreateTemplateRequest } from "../api/schemas/templates.ts";
import type { Config } from "../config.ts";
import type { Env } from "../env.ts";
import { fillTemplate } from "./fill-template.ts";
import { templateShapeIssues } from "./template-shape.ts";
import { sampleValues, variableValues } from "./variable-values.ts";

/**
 * A template is checked as the job it makes: its variables given their defaults (or a value of their
 * type where they have none) and the job body so filled checked by the path every job takes
 * (parseCreateJobBody, prepareJob: the schema, the argument policy, inputs, webhook URL). Its values
 * are checked again when a job is made from it (src/templates/job-from-template.ts), so a value can
 * never bring in what the policy refuses. Throws the 400 that lists the problems, at the template's paths.
 */
export async function checkTemplate(
  env: Env,
  config: Config,
  accountId: string,
  template: Omit<CreateTemplateRequest, "name">,
  apiOrigin: string,
): Promise<void> {
  const shape = templateShapeIssues(template.job, template.variables);
  const samples = variableValues(template.variables, sampleValues(template.variables));
  const defaults =
    "issues" in samples
      ? samples.issues.map((i) => ({ path: ["variables", i.path[1], "default"], message: i.message }))
      : [];
  if (shape.length || defaults.length || "issues" in samples) throw invalidRequest(custom([...shape, ...defaults]));
  const filled = fillTemplate(template.job, samples.values);
  if ("issues" in filled) throw invalidRequest(custom(filled.issues));
  try {
    await prepareJob(env, config, accountId, parseCreateJobBody(filled.body), apiOrigin);
  } catch (err) {
    if (!(err instanceof ApiError) || err.code !== "INVALID_REQUEST") throw err;
    // The first problem named at the template's path, as any 400 names it; the message says the defaults were used.
    const details = (err.details ?? []).map((d) => ({ ...d, path: ["job", ...d.path] }));
    const first = details[0];
    const said = first ? `${first.path.join(".")}: ${first.message}` : err.message;
    throw invalidRequest(details, `The template's job, its variables at their defaults, is not a valid job: ${said}`);
  }
}

function custom(issues: { path: string[]; message: string }[]): ErrorDetail[] {
  return issues.map((i) => ({ ...i, code: "custom" }));
}
