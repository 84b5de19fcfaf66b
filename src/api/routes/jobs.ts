import { idempotent } from "../idempotency.ts";
import { parseListQuery } from "../list-jobs-query.ts";
import { prepareJob } from "../prepare-job.ts";
import { Hono, type Context } from "hono";
import type { AppEnv } from "../app-env.ts";
import { ApiError, unknownCursor } from "../api-error.ts";
import { idParamSchema } from "../schemas/common.ts";
import { getJobQuerySchema } from "../schemas/jobs.ts";
import { validateCreateJob } from "../create-job-validation.ts";
import { preferredWaitSeconds, waitForTerminal } from "../job-waits.ts";
import { jobEventStream, KEEPALIVE_MS, withPushedProgress } from "./job-events.ts";
import { tickFeedReader } from "./tick-feed.ts";
import { afterResponse } from "../after-response.ts";
import { requireJsonBody, validate } from "../validation.ts";
import { getJob, jobSpecOf, listJobs, plannedArgsOf } from "../../jobs/store/job-store.ts";
import { reproduceScript } from "../../jobs/views/reproduce-script.ts";
import { runnerInputs } from "../../jobs/runner-request/runner-inputs.ts";
import { RUNNER_IO_URL_TTL_SECONDS } from "../../jobs/request/limits.ts";
import { createServices } from "../../services.ts";
import { decodeCursor } from "../../storage/keyset-page.ts";
import { isTerminal } from "../../jobs/transitions/job-states.ts";
import { jobResultView, jobView, type Links } from "../../jobs/views/job-view.ts";
import { jobSummary } from "../../jobs/views/job-summary.ts";
import { listOutputs } from "../../jobs/store/output-store.ts";
import { listTasks } from "../../jobs/split/task-store.ts";
import { taskView } from "../../jobs/split/task-view.ts";
import { deleteFinishedJob } from "../../storage/delete-asset.ts";
import { createPresigner } from "../../storage/presigner.ts";
import { loadConfig } from "../../config.ts";
import { insertJob } from "../../jobs/transitions/insert-job.ts";
import { cancelOnRequest } from "../../jobs/lifecycle/cancel-job.ts";
import type { JobRow } from "../../jobs/store/job-row.ts";

export const jobRoutes = new Hono<AppEnv>();

/** Download URLs for this request: presigned storage URLs, and directory outputs under this origin. */
const linksOf = (c: Context<AppEnv>): Links => {
  const config = loadConfig(c.env);
  return { presigner: createPresigner(config.storage), storage: config.storage, origin: new URL(c.req.url).origin, jobTimeoutMs: config.jobTimeoutMs };
};

jobRoutes.post("/", requireJsonBody, idempotent("jobs.create"), validateCreateJob, async (c) => {
  const account = c.get("account");
  const { spec } = await prepareJob(c.env, loadConfig(c.env), account.id, c.get("createJob"), new URL(c.req.url).origin);

  const id = crypto.randomUUID();
  await insertJob(c.env.DB, { id, accountId: account.id, spec, now: new Date().toISOString() });
  // The job is stored: a lost dispatch message is re-sent by the sweeper, so the client still gets
  // its 202 (a 500 here would make it retry and create the job twice).
  await c.env.JOBS_QUEUE.send({ jobId: id }).catch((err) => console.error(`job ${id}: dispatch deferred to the sweeper`, err));
  // Straight to its coordinator as well, without waiting for the queue's delivery: the message is
  // the durable path (a second start is a no-op), this one only saves the hop.
  afterResponse(c, coordinatorOf(c.env, id).start(id));
  c.header("Location", `/v1/jobs/${id}`);
  // Prefer: wait=N (RFC 7240): the finished job if it ends within N seconds, else the usual 202.
  const waitSeconds = preferredWaitSeconds(c.req.header("Prefer"));
  if (waitSeconds) {
    const job = await waitForTerminal(waitDeps(c.env, id, account.id, c.req.raw.signal), waitSeconds);
    if (isTerminal(job.status)) {
      c.header("Preference-Applied", `wait=${waitSeconds}`);
      return c.json(await jobView(job, await listOutputs(c.env.DB, [job.id]), linksOf(c)), 200);
    }
  }
  return c.json({ id, binary: spec.binary, status: "queued" as const, mode: spec.mode ?? "raw" }, 202);
});

jobRoutes.get("/", async (c) => {
  const { query: q, metadata } = parseListQuery(new URL(c.req.url).searchParams);
  const cursor = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
  if (cursor === null) throw unknownCursor();
  const page = await listJobs(c.env.DB, c.get("account").id, { limit: q.limit, cursor, status: q.status, metadata });
  // Summaries (src/jobs/views/job-summary.ts): a page of whole jobs could outgrow the isolate's memory.
  return c.json({ data: page.rows.map(jobSummary), nextCursor: page.nextCursor });
});

jobRoutes.get("/:id", validate("param", idParamSchema), validate("query", getJobQuerySchema), async (c) => {
  const accountId = c.get("account").id;
  let job = await requireJob(c.env.DB, c.req.valid("param").id, accountId);
  const wait = c.req.valid("query").wait;
  if (wait) job = await waitForTerminal(waitDeps(c.env, job.id, accountId, c.req.raw.signal), wait);
  if (job.status === "running") job = await withCoordinatorProgress(c.env, job);
  return c.json(await jobView(job, await listOutputs(c.env.DB, [job.id]), linksOf(c)));
});

jobRoutes.get("/:id/events", validate("param", idParamSchema), async (c) => {
  const accountId = c.get("account").id;
  const { id } = c.req.valid("param");
  await requireJob(c.env.DB, id, accountId);
  // One call to the coordinator for the stream's life, not one per tick (a subrequest each).
  const feed = tickFeedReader(() => coordinatorOf(c.env, id).tickFeed(KEEPALIVE_MS));
  const stream = jobEventStream(
    {
      read: () => requireJob(c.env.DB, id, accountId),
      // Outputs are recorded with the terminal state: before it there are none to read.
      view: async (job) => jobView(job, isTerminal(job.status) ? await listOutputs(c.env.DB, [job.id]) : [], linksOf(c)),
      tick: feed.tick,
      close: feed.close,
    },
    c.req.header("Last-Event-ID") ?? null,
  );
  return new Response(stream, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
});

jobRoutes.get("/:id/result", validate("param", idParamSchema), async (c) => {
  const job = await requireJob(c.env.DB, c.req.valid("param").id, c.get("account").id);
  if (!isTerminal(job.status)) {
    throw new ApiError("JOB_NOT_FINISHED", `The job is ${job.status}; its result exists once it finishes`, { extra: { status: job.status } });
  }
  return c.json(await jobResultView(job, await listOutputs(c.env.DB, [job.id]), linksOf(c)));
});

/** A split job's tasks (src/jobs/split/): what ran where, how often, how long. */
jobRoutes.get("/:id/tasks", validate("param", idParamSchema), async (c) => {
  const job = await requireJob(c.env.DB, c.req.valid("param").id, c.get("account").id);
  return c.json({ data: (await listTasks(c.env.DB, job.id)).map(taskView) });
});

/** A shell script that runs the job again with a local ffmpeg (src/jobs/views/reproduce-script.ts). */
jobRoutes.get("/:id/command", validate("param", idParamSchema), async (c) => {
  const job = await requireJob(c.env.DB, c.req.valid("param").id, c.get("account").id);
  const spec = jobSpecOf(job);
  const inputs = await runnerInputs(createServices(c.env), spec, job.account_id, { skipMissing: true });
  const expires = new Date(Date.now() + RUNNER_IO_URL_TTL_SECONDS * 1000).toISOString();
  const script = reproduceScript({ id: job.id, status: job.status, createdAt: job.created_at, plannedArgs: plannedArgsOf(job) }, spec, inputs, expires);
  return c.body(script, 200, { "content-type": "text/x-shellscript; charset=utf-8", "content-disposition": `inline; filename="ffjobs-${job.id}.sh"`, "cache-control": "no-store" });
});

jobRoutes.post("/:id/cancel", validate("param", idParamSchema), async (c) => {
  const accountId = c.get("account").id;
  const job = await requireJob(c.env.DB, c.req.valid("param").id, accountId);
  if (isTerminal(job.status)) alreadyFinished(job.status);
  const coordinator = coordinatorOf(c.env, job.id);
  await cancelOnRequest(createServices(c.env), job, coordinator, (work) => afterResponse(c, work));
  const after = await requireJob(c.env.DB, job.id, accountId);
  if (after.status !== "canceled") alreadyFinished(after.status);
  return c.json(await jobView(after, await listOutputs(c.env.DB, [after.id]), linksOf(c)));
});

/** A finished job and its stored outputs, gone (204). A job still queued or running: cancel it first. */
jobRoutes.delete("/:id", validate("param", idParamSchema), async (c) => {
  const job = await requireJob(c.env.DB, c.req.valid("param").id, c.get("account").id);
  if (!isTerminal(job.status)) {
    throw new ApiError("JOB_NOT_FINISHED", `The job is ${job.status}: cancel it, then delete it`, { extra: { status: job.status } });
  }
  // Rows first, bytes after (src/storage/delete-asset.ts): false only if another delete got there first.
  if (!(await deleteFinishedJob(c.env.DB, c.env.BUCKET, job.id))) throw new ApiError("NOT_FOUND", "No job with this id");
  return c.body(null, 204);
});

const coordinatorOf = (env: AppEnv["Bindings"], jobId: string) => env.JOB_COORDINATOR.get(env.JOB_COORDINATOR.idFromName(jobId));

function waitDeps(env: AppEnv["Bindings"], jobId: string, accountId: string, signal: AbortSignal) {
  return { read: () => requireJob(env.DB, jobId, accountId), wake: (ms: number) => coordinatorOf(env, jobId).waitForEnd(ms), signal };
}

async function requireJob(db: D1Database, id: string, accountId: string) {
  const job = await getJob(db, id, accountId);
  if (!job) throw new ApiError("NOT_FOUND", "No job with this id");
  return job;
}

function alreadyFinished(status: string): never {
  throw new ApiError("JOB_ALREADY_FINISHED", `The job is already ${status}`, { extra: { status } });
}

/**
 * A running job's progress from its coordinator, which has it as the runner last reported it (D1
 * gets it every PROGRESS_SAVE_INTERVAL_MS); D1's if the coordinator cannot say (restarting).
 */
async function withCoordinatorProgress(env: AppEnv["Bindings"], job: JobRow): Promise<JobRow> {
  const snapshot = await coordinatorOf(env, job.id).snapshot().catch(() => null);
  return withPushedProgress(job, { woken: true, ended: false, snapshot });
}
