import type { Services } from "../services.ts";
import { getAssets } from "../storage/asset-store.ts";
import { objectKeys } from "../storage/presigner.ts";
import type { RunnerInput, RunnerJobRequest, RunnerOutput } from "../runner/runner-protocol.ts";
import { RUNNER_IO_URL_TTL_SECONDS } from "./limits.ts";
import { getJob, jobSpecOf, markRunning, type JobRow } from "./job-store.ts";
import { endJob } from "./end-job.ts";
import { failure, rejection } from "./billing.ts";

export type StartResult = "started" | "skipped" | "rejected" | "failed";

/**
 * Hands a queued job to its runner. The guarded queued → running update is the gate that makes a
 * duplicate queue message, or a job canceled meanwhile, change nothing.
 */
export async function startJob(s: Services, jobId: string): Promise<StartResult> {
  const job = await getJob(s.db, jobId);
  if (!job || job.status !== "queued") return "skipped";
  if (await creditsExhausted(s.db, job.account_id)) {
    await endJob(s, jobId, rejection("INSUFFICIENT_CREDITS", "The account's credit balance is exhausted"));
    return "rejected";
  }
  if (await activeJobsBefore(s.db, job) >= s.config.maxActiveJobsPerAccount) {
    await endJob(s, jobId, rejection("TOO_MANY_ACTIVE_JOBS", `The account already has ${s.config.maxActiveJobsPerAccount} jobs queued or running`));
    return "rejected";
  }
  const request = await buildRunnerRequest(s, job);
  if (!(await markRunning(s.db, jobId, s.now().toISOString()))) return "skipped";
  try {
    await s.runner.start(request);
    return "started";
  } catch (err) {
    console.error(`job ${jobId}: runner start failed`, err);
    await endJob(s, jobId, failure("RUNNER_UNAVAILABLE", "No runner could be reached to start the job"));
    return "failed";
  }
}

/** The account's other jobs still queued or running that were created before this one. */
async function activeJobsBefore(db: D1Database, job: JobRow): Promise<number> {
  const row = await db
    .prepare(
      `SELECT COUNT(*) AS n FROM jobs WHERE account_id = ?1 AND status IN ('queued', 'running')
       AND (created_at < ?2 OR (created_at = ?2 AND id < ?3))`,
    )
    .bind(job.account_id, job.created_at, job.id)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

async function creditsExhausted(db: D1Database, accountId: string): Promise<boolean> {
  const row = await db.prepare("SELECT credit_balance FROM accounts WHERE id = ?1").bind(accountId).first<{ credit_balance: number | null }>();
  return row !== null && row.credit_balance !== null && row.credit_balance <= 0;
}

export async function buildRunnerRequest(s: Services, job: JobRow): Promise<RunnerJobRequest> {
  const spec = jobSpecOf(job);
  const assetIds = Object.values(spec.inputs).flatMap((i) => (i.type === "asset" ? [i.assetId] : []));
  const assets = new Map((await getAssets(s.db, assetIds, job.account_id)).map((a) => [a.id, a]));
  const inputs: RunnerInput[] = await Promise.all(
    Object.entries(spec.inputs).map(async ([name, input]): Promise<RunnerInput> => {
      if (input.type === "url") return { name, url: input.url, fileName: new URL(input.url).pathname, trusted: false };
      const asset = assets.get(input.assetId);
      if (!asset) throw new Error(`asset ${input.assetId} vanished`);
      const { url } = await s.presigner.presign("GET", asset.object_key, RUNNER_IO_URL_TTL_SECONDS);
      return { name, url, fileName: asset.file_name, trusted: true };
    }),
  );
  const outputs: RunnerOutput[] = await Promise.all(
    Object.entries(spec.outputs).map(async ([name, o]) => {
      const { url } = await s.presigner.presign("PUT", objectKeys.output(job.id, name, o.fileName), RUNNER_IO_URL_TTL_SECONDS);
      return { name, fileName: o.fileName, contentType: o.contentType, uploadUrl: url };
    }),
  );
  return {
    jobId: job.id,
    binary: spec.binary,
    args: spec.args,
    inputs,
    outputs,
    timeoutMs: s.config.jobTimeoutMs,
    allowedPrivateHosts: s.config.allowedPrivateHosts,
  };
}
