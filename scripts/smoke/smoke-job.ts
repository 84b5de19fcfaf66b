// How the smoke test runs a job and calls the API while a first deploy's containers may still be
// starting: a fault of the infrastructure (no runner yet) is NotReadyYet, for cold-start.ts to wait out.
import { FfjobsError, type CreateJobRequest, type FfjobsClient, type Job } from "../../client/src/index.ts";
import { NoCompleteAnswer } from "./bounded-fetch.ts";
import { NotReadyYet, RUNNER_FAULT_CODES, untilReady, type Patience } from "./cold-start.ts";

/** Longest a single smoke job may take once it has a runner: the input is one second of audio. */
const JOB_WAIT_MS = 5 * 60_000;
const JOB_TIMEOUT_SECONDS = 120;
const METADATA = { purpose: "smoke-test" };

/** Runs a job to its end; retried (as a new job) while its runner never worked, within the smoke test's one budget. */
export type RunJob = (what: string, body: CreateJobRequest) => Promise<Job>;

export function jobRunner(client: FfjobsClient, startedAt: number, patience: Patience): RunJob {
  return (what, body) => untilReady(what, () => runJob(client, body), startedAt, patience);
}

/** Creates a job and waits for its end; a job whose runner never worked is NotReadyYet (a new job is tried). */
async function runJob(client: FfjobsClient, body: CreateJobRequest): Promise<Job> {
  const created = await notReadyOnFault(() =>
    client.createJob({ ...body, metadata: METADATA, timeoutSeconds: JOB_TIMEOUT_SECONDS }),
  );
  const job = await client.waitForJob(created.id, { timeoutMs: JOB_WAIT_MS }).catch(async (err: Error) => {
    // Still queued: no runner took it (yet). Cancel it, so only the next try runs.
    if (err instanceof FfjobsError) throw err;
    await client.cancelJob(created.id).catch(() => {});
    throw new NotReadyYet(`job ${created.id} did not finish within ${JOB_WAIT_MS / 60_000} min`);
  });
  if (job.status !== "completed" && job.errorCode && RUNNER_FAULT_CODES.includes(job.errorCode))
    throw new NotReadyYet(`job ${job.id} ${job.status} ${job.errorCode}`);
  return job;
}

/** A job that must have completed: otherwise its error, with the end of its stderr. */
export async function completed(client: FfjobsClient, job: Job): Promise<Job> {
  if (job.status === "completed") return job;
  const result = await client.getResult(job.id).catch(() => null);
  throw new Error(
    `job ${job.id} ${job.status}: ${job.errorCode} ${job.errorMessage ?? ""}${result?.stderrTail ? `\n${result.stderrTail}` : ""}`,
  );
}

/**
 * Not ready: no connection yet, no whole answer in time (bounded-fetch.ts), a 5xx, or an answer that is not the API's JSON (a new workers.dev
 * name can answer Cloudflare's own page for a while). A 401 (a wrong key) and other 4xx are final.
 */
export async function notReadyOnFault<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof FfjobsError) {
      if (err.status === 401) throw new Error("the API key was refused (401)");
      if (err.status >= 500 || err.code.startsWith("HTTP_")) throw new NotReadyYet(`HTTP ${err.status} ${err.code}`);
      throw err;
    }
    if (err instanceof NoCompleteAnswer) throw new NotReadyYet(err.message);
    if (err instanceof TypeError)
      throw new NotReadyYet(`cannot connect: ${(err.cause as Error | undefined)?.message ?? err.message}`);
    throw err;
  }
}
