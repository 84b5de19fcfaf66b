import type { Services } from "../../services.ts";
import type { RunnerJobRequest } from "../../runner/runner-protocol.ts";
import { notifyUrlFor } from "../../runner/runner-notify.ts";
import { presetForRunner } from "../../presets/expand-preset.ts";
import { jobSpecOf } from "../store/job-store.ts";
import { jobTimeoutMs } from "../request/job-request.ts";
import { runnerInputs } from "./runner-inputs.ts";
import { runnerOutputs } from "./runner-outputs.ts";
import { runnerLeaseMs } from "../lifecycle/retry-policy.ts";
import type { JobRow } from "../store/job-row.ts";

/** A job's whole command as its runner gets it: one attempt (dispatch-job.ts), or a split job run whole. */
export async function buildRunnerRequest(s: Services, job: JobRow): Promise<RunnerJobRequest> {
  const spec = jobSpecOf(job);
  const inputs = await runnerInputs(s, spec, job.account_id);
  const outputs = await runnerOutputs(s, job, spec);
  return {
    jobId: job.id,
    binary: spec.binary,
    args: spec.args,
    ...presetForRunner(spec),
    ...(spec.steps ? { steps: spec.steps } : {}),
    ...(spec.scratch ? { scratch: Object.entries(spec.scratch).map(([name, fileName]) => ({ name, fileName })) } : {}),
    inputs,
    outputs,
    ...(spec.onFailedCheck ? { onFailedCheck: spec.onFailedCheck } : {}),
    timeoutMs: jobTimeoutMs(spec, s.config.jobTimeoutMs),
    allowedPrivateHosts: s.config.allowedPrivateHosts,
    createdAt: job.created_at,
    leaseMs: runnerLeaseMs(s.config.runnerPollIntervalMs),
    notifyUrl: notifyUrlFor(s.config, job.id),
  };
}
