import type { Env } from "../env.ts";
import type { Config } from "../config.ts";
import { invalidRequest } from "./api-error.ts";
import type { CreateJobRequest } from "./schemas/job-request.ts";
import type { PresetJobRequest } from "./schemas/presets.ts";
import { expandPresetJob } from "../presets/expand-preset.ts";
import { toJobSpec, type JobSpec } from "../jobs/request/job-request.ts";
import { checkJobRequest } from "../jobs/request/check-job-request.ts";
import { outputCheckIssues } from "../jobs/checks/output-check-issues.ts";
import { privateUrlIssues, unreachableUrlIssues } from "../jobs/request/url-input-checks.ts";
import { checkAssetInputs } from "../jobs/request/asset-inputs.ts";
import { checkChainedInputs } from "../jobs/request/chained-inputs.ts";
import { splitShape } from "../jobs/split/split-eligibility.ts";
import { webhookUrlProblem } from "../webhooks/webhook-url.ts";
import { JOB_COLUMN_MAX_BYTES } from "../jobs/store/row-budget.ts";
import { utf8Bytes } from "../jobs/store/stored-bytes.ts";
import type { TemplateRef } from "../templates/job-from-template.ts";

/**
 * A parsed job body as the job it would create: a preset expanded, every rule checked (policy,
 * inputs, ports, private addresses, assets, webhook URL, time limit). Throws the 400 that lists the
 * problems. Creating a job and its dry run (`POST /v1/jobs/validate`) both go through here.
 */
export async function prepareJob(
  env: Env,
  config: Config,
  accountId: string,
  body: CreateJobRequest | PresetJobRequest,
  apiOrigin: string,
  template?: TemplateRef,
): Promise<{ spec: JobSpec; req: CreateJobRequest }> {
  const expanded = body.mode === "preset" ? expandPresetJob(body) : null;
  if (expanded && "issues" in expanded) throw invalidRequest(expanded.issues.map((i) => ({ ...i, code: "custom" })));
  const req = expanded ? expanded.request : (body as CreateJobRequest);
  const extra = {
    apiOrigin,
    ...(template ? { template } : {}),
    ...(body.metadata ? { metadata: body.metadata } : {}),
    ...(body.timeoutSeconds ? { timeoutSeconds: body.timeoutSeconds } : {}),
    ...(body.dependsOn ? { dependsOn: body.dependsOn } : {}),
    ...("parallel" in body && body.parallel ? { parallel: body.parallel } : {}),
  };
  const spec: JobSpec = expanded
    ? { ...toJobSpec(req), mode: "preset", preset: expanded.preset, params: expanded.params, ...extra }
    : { ...toJobSpec(req), ...extra };
  const issues = [
    ...checkJobRequest(req),
    ...outputCheckIssues(spec),
    ...unreachableUrlIssues(req, config.runnerMode),
    ...privateUrlIssues(req, config.allowedPrivateHosts),
    ...(await checkAssetInputs(env.DB, env.BUCKET, accountId, req, spec)),
    ...(await checkChainedInputs(env.DB, accountId, spec, (name) =>
      req.input ? ["input", name.slice("input".length)] : ["inputs", name],
    )),
  ];
  if (spec.parallel) {
    const split = splitShape(spec);
    if ("issues" in split) issues.push(...split.issues);
  }
  if (body.timeoutSeconds && body.timeoutSeconds * 1000 > config.jobTimeoutMs) {
    issues.push({
      path: ["timeoutSeconds"],
      message: `at most ${config.jobTimeoutMs / 1000} (the operator's JOB_TIMEOUT_SECONDS)`,
    });
  }
  const webhookProblem = spec.webhookUrl && webhookUrlProblem(spec.webhookUrl, config.allowedPrivateHosts);
  if (webhookProblem) issues.push({ path: ["webhookUrl"], message: webhookProblem });
  // The job's row keeps the request as stored (src/jobs/store/row-budget.ts); a preset's expansion could outgrow the body.
  const storedBytes = utf8Bytes(JSON.stringify(spec));
  if (storedBytes > JOB_COLUMN_MAX_BYTES.request_json)
    issues.push({
      path: [],
      message: `the job as stored would be ${storedBytes} bytes, more than ${JOB_COLUMN_MAX_BYTES.request_json}`,
    });
  if (issues.length) throw invalidRequest(issues.map((i) => ({ ...i, code: "custom" })));
  return { spec, req };
}
