import type { Context } from "hono";
import type { AppEnv } from "../app-env.ts";
import { ApiError } from "../api-error.ts";
import { loadConfig } from "../../config.ts";
import { getJob, getJobStatement } from "../../jobs/store/job-store.ts";
import type { JobRow } from "../../jobs/store/job-row.ts";
import { listOutputsStatement, type OutputRow } from "../../jobs/store/output-store.ts";
import type { Links } from "../../jobs/views/job-view.ts";
import { createPresigner } from "../../storage/presigner.ts";

/* What the /v1/jobs routes look up for a request: the account's job, its coordinator, the links its answer carries. */

/** The job with this id if the account owns it, else the 404 (another account's job reads as missing). */
export async function requireJob(db: D1Database, id: string, accountId: string) {
  const job = await getJob(db, id, accountId);
  if (!job) throw new ApiError("NOT_FOUND", "No job with this id");
  return job;
}

/** A job with its stored outputs: what a job's answer is built from. */
export type JobWithOutputs = { job: JobRow; outputs: OutputRow[] };

/** `requireJob` and the job's stored outputs, in one round trip. */
export async function requireJobWithOutputs(db: D1Database, id: string, accountId: string): Promise<JobWithOutputs> {
  const [job, outputs] = await db.batch([getJobStatement(db, id, accountId), listOutputsStatement(db, [id])]);
  const row = job.results[0] as JobRow | undefined;
  if (!row) throw new ApiError("NOT_FOUND", "No job with this id");
  return { job: row, outputs: outputs.results as OutputRow[] };
}

export const coordinatorOf = (env: AppEnv["Bindings"], jobId: string) =>
  env.JOB_COORDINATOR.get(env.JOB_COORDINATOR.idFromName(jobId));

/** Download URLs for this request: presigned storage URLs, and directory outputs under this origin. */
export const linksOf = (c: Context<AppEnv>): Links => {
  const config = loadConfig(c.env);
  return {
    presigner: createPresigner(config.storage),
    storage: config.storage,
    origin: new URL(c.req.url).origin,
    jobTimeoutMs: config.jobTimeoutMs,
  };
};
