import { getJob, jobSpecOf } from "../store/job-store.ts";
import { listOutputs } from "../store/output-store.ts";
import type { JobSpec, RequestIssue } from "./job-request.ts";
import type { RunnerInput } from "../../runner/runner-protocol.ts";
import { isTerminal } from "../transitions/job-states.ts";
import type { JobRow } from "../store/job-row.ts";

/*
 * Inputs that are another job's output (`{ type: "job", jobId, output }`): a chain runs without a
 * round trip through the client. The job waits, queued, until every job it reads from (and every job
 * in its `dependsOn`) has completed, and fails with INPUT_JOB_FAILED (DEPENDENCY_FAILED) if one ends
 * any other way or is deleted instead. Only the account's own jobs can be named: another account's
 * job id is answered as one that does not exist.
 */

/** How often a waiting job looks at the jobs it reads from: a child starts at most this long after its parent ends. */
export const CHAIN_CHECK_MS = 2_000;

export type ChainedInput = { name: string; jobId: string; output: string };

export function chainedInputs(spec: Pick<JobSpec, "inputs">): ChainedInput[] {
  return Object.entries(spec.inputs).flatMap(([name, i]) =>
    i.type === "job" ? [{ name, jobId: i.jobId, output: i.output }] : [],
  );
}

/** Whether the job waits on other jobs at all (reads their outputs, or names them in `dependsOn`). */
export function waitsOnJobs(spec: Pick<JobSpec, "inputs" | "dependsOn">): boolean {
  return chainedInputs(spec).length > 0 || (spec.dependsOn?.length ?? 0) > 0;
}

/**
 * At creation: each job read from exists in this account, declares that file output, and can still
 * make it; each job in `dependsOn` exists in this account and has not ended without completing.
 */
export async function checkChainedInputs(
  db: D1Database,
  accountId: string,
  spec: JobSpec,
  pathOf: (name: string) => string[],
): Promise<RequestIssue[]> {
  const issues: RequestIssue[] = [];
  for (const [i, jobId] of (spec.dependsOn ?? []).entries()) {
    const other = await getJob(db, jobId, accountId);
    if (!other) issues.push({ path: ["dependsOn", String(i)], message: `job ${jobId} does not exist` });
    else if (isTerminal(other.status) && other.status !== "completed")
      issues.push({
        path: ["dependsOn", String(i)],
        message: `job ${jobId} ${other.status} (${other.error_code}): it will never complete`,
      });
  }
  for (const input of chainedInputs(spec)) {
    const path = [...pathOf(input.name), "jobId"];
    const parent = await getJob(db, input.jobId, accountId);
    if (!parent) {
      issues.push({ path, message: `job ${input.jobId} does not exist` });
      continue;
    }
    const declared = jobSpecOf(parent).outputs[input.output];
    if (!declared)
      issues.push({
        path: [...pathOf(input.name), "output"],
        message: `job ${input.jobId} has no output "${input.output}"`,
      });
    else if (declared.kind === "directory")
      issues.push({
        path: [...pathOf(input.name), "output"],
        message: `output "${input.output}" of job ${input.jobId} is a directory: only a file output can be an input`,
      });
    else if (isTerminal(parent.status) && parent.status !== "completed")
      issues.push({
        path,
        message: `job ${input.jobId} ${parent.status} (${parent.error_code}): it will not make "${input.output}"`,
      });
    else if (parent.status === "completed" && !(await outputFiles(db, [input])).has(input.name)) {
      issues.push({
        path: [...pathOf(input.name), "output"],
        message: `output "${input.output}" of job ${input.jobId} is no longer stored`,
      });
    }
  }
  return issues;
}

export type ChainState =
  | { kind: "ready" }
  | { kind: "waiting"; reason: string }
  | { kind: "failed"; code: "INPUT_JOB_FAILED" | "DEPENDENCY_FAILED"; message: string };

/** Whether the jobs a queued job waits on have completed (and their outputs are there to read), will, or never will. */
export async function chainState(db: D1Database, job: Pick<JobRow, "account_id">, spec: JobSpec): Promise<ChainState> {
  const waiting: string[] = [];
  for (const jobId of spec.dependsOn ?? []) {
    const other = await getJob(db, jobId, job.account_id);
    if (!other)
      return {
        kind: "failed",
        code: "DEPENDENCY_FAILED",
        message: `dependsOn: job ${jobId} was deleted before it completed`,
      };
    if (!isTerminal(other.status)) waiting.push(`job ${jobId} (${other.status})`);
    else if (other.status !== "completed")
      return {
        kind: "failed",
        code: "DEPENDENCY_FAILED",
        message: `dependsOn: job ${jobId} ${other.status} (${other.error_code}: ${other.error_message ?? ""})`,
      };
  }
  for (const input of chainedInputs(spec)) {
    const parent = await getJob(db, input.jobId, job.account_id);
    if (!parent)
      return {
        kind: "failed",
        code: "INPUT_JOB_FAILED",
        message: `Input "${input.name}": job ${input.jobId} was deleted before it could be read`,
      };
    if (!isTerminal(parent.status)) waiting.push(`job ${input.jobId} (${parent.status})`);
    else if (parent.status !== "completed") {
      return {
        kind: "failed",
        code: "INPUT_JOB_FAILED",
        message: `Input "${input.name}": job ${input.jobId} ${parent.status} (${parent.error_code}: ${parent.error_message ?? ""}), so it made no "${input.output}"`,
      };
    } else if (!(await outputFiles(db, [input])).has(input.name)) {
      return {
        kind: "failed",
        code: "INPUT_JOB_FAILED",
        message: `Input "${input.name}": output "${input.output}" of job ${input.jobId} is no longer stored`,
      };
    }
  }
  return waiting.length
    ? { kind: "waiting", reason: `waiting for ${[...new Set(waiting)].join(", ")} to complete` }
    : { kind: "ready" };
}

/** The stored file of each chained input whose job completed: its object key and file name. */
export async function outputFiles(
  db: D1Database,
  inputs: ChainedInput[],
): Promise<Map<string, { objectKey: string; fileName: string }>> {
  const found = new Map<string, { objectKey: string; fileName: string }>();
  if (inputs.length === 0) return found;
  const outputs = await listOutputs(db, [...new Set(inputs.map((i) => i.jobId))]);
  for (const input of inputs) {
    const output = outputs.find((o) => o.job_id === input.jobId && o.label === input.output);
    if (output) found.set(input.name, { objectKey: output.object_key, fileName: output.file_name });
  }
  return found;
}

/**
 * A dry run's view of chained inputs whose job has not completed yet: the file name the job declared
 * for that output (so the command lines show where it will be), and no URL (nothing to fetch yet).
 */
export async function notYetStoredInputs(
  db: D1Database,
  spec: JobSpec,
  accountId: string,
  stored: RunnerInput[],
): Promise<RunnerInput[]> {
  const have = new Set(stored.map((i) => i.name));
  const pending = chainedInputs(spec).filter((i) => !have.has(i.name));
  return Promise.all(
    pending.map(async (input) => {
      const parent = await getJob(db, input.jobId, accountId);
      const fileName = parent ? (jobSpecOf(parent).outputs[input.output]?.fileName ?? input.output) : input.output;
      return { name: input.name, url: "", fileName, trusted: true };
    }),
  );
}
