import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env.ts";
import { ApiError, unknownCursor } from "../api-error.ts";
import { afterResponse } from "../after-response.ts";
import { JOB_BODY, validateCreateJob } from "../create-job-validation.ts";
import { IDEMPOTENCY_KEY_HEADER, idempotent } from "../idempotency.ts";
import { PREFER_WAIT_HEADER, preferredWaitSeconds, waitForTerminal } from "../job-waits.ts";
import { METADATA_FILTER_PARAMETER, parseListQuery } from "../list-jobs-query.ts";
import { operation, serveOperations } from "../operation.ts";
import { parametersOf } from "../openapi-parameters.ts";
import { errors, json } from "../openapi-responses.ts";
import { prepareJob } from "../prepare-job.ts";
import { idParamSchema } from "../schemas/common.ts";
import { getJobQuerySchema, listJobsQuerySchema } from "../schemas/jobs.ts";
import { getJobCommand, getJobResult, listJobTasks, streamJobEvents } from "./job-details.ts";
import { withPushedProgress } from "./job-events.ts";
import { coordinatorOf, linksOf, requireJob, requireJobWithOutputs } from "./job-lookup.ts";
import { validateJob } from "./job-validate.ts";
import { loadConfig } from "../../config.ts";
import { cancelOnRequest } from "../../jobs/lifecycle/cancel-job.ts";
import type { JobRow } from "../../jobs/store/job-row.ts";
import { listJobs as readJobs } from "../../jobs/store/job-store.ts";
import { insertJob } from "../../jobs/transitions/insert-job.ts";
import { isTerminal } from "../../jobs/transitions/job-states.ts";
import { jobSummary } from "../../jobs/views/job-summary.ts";
import { jobView } from "../../jobs/views/job-view.ts";
import { createServices } from "../../services.ts";
import { deleteFinishedJob } from "../../storage/delete-asset.ts";
import { decodeCursor } from "../../storage/keyset-page.ts";

const createJob = operation(
  createRoute({
    method: "post",
    path: "/",
    operationId: "createJob",
    summary: "Create a job (with `Prefer: wait=N`, answer with the finished job if it ends within N ≤ 60 seconds)",
    parameters: [PREFER_WAIT_HEADER, IDEMPOTENCY_KEY_HEADER],
    request: { body: JOB_BODY },
    middleware: [idempotent("jobs.create"), validateCreateJob],
    responses: {
      200: json("Job", "Finished within the preferred wait (Preference-Applied: wait=N)"),
      202: json("JobAccepted", "Accepted", {
        headers: { Location: { schema: { type: "string" }, description: "The job's URL" } },
      }),
      ...errors({
        400: ["INVALID_REQUEST"],
        409: ["IDEMPOTENCY_KEY_REUSED", "IDEMPOTENCY_KEY_IN_USE"],
        413: ["PAYLOAD_TOO_LARGE"],
      }),
    },
  }),
  async (c) => {
    const account = c.get("account");
    const { spec } = await prepareJob(
      c.env,
      loadConfig(c.env),
      account.id,
      c.get("createJob"),
      new URL(c.req.url).origin,
      c.get("template"),
    );

    const id = crypto.randomUUID();
    const inserted = await insertJob(c.env.DB, { id, accountId: account.id, spec, now: new Date().toISOString() });
    // Straight to its coordinator, first, with the row (not read back): the job starts while the message
    // below is being sent, not after it, and without waiting for the queue's delivery. The message is
    // the durable path (a second start is a no-op); this call only saves the hops.
    afterResponse(c, coordinatorOf(c.env, id).start(id, inserted));
    // The job is stored: a lost dispatch message is re-sent by the sweeper, so the client still gets
    // its 202 (a 500 here would make it retry and create the job twice).
    await c.env.JOBS_QUEUE.send({ jobId: id }).catch((err) =>
      console.error(`job ${id}: dispatch deferred to the sweeper`, err),
    );
    c.header("Location", `/v1/jobs/${id}`);
    // Prefer: wait=N (RFC 7240): the finished job if it ends within N seconds, else the usual 202.
    const waitSeconds = preferredWaitSeconds(c.req.header("Prefer"));
    if (waitSeconds) {
      const known = { job: inserted, outputs: [] };
      const { job, outputs } = await waitForTerminal(
        { ...waitDeps(c.env, id, account.id, c.req.raw.signal), known },
        waitSeconds,
      );
      if (isTerminal(job.status)) {
        c.header("Preference-Applied", `wait=${waitSeconds}`);
        return c.json(await jobView(job, outputs, linksOf(c)), 200);
      }
    }
    return c.json({ id, binary: spec.binary, status: "queued" as const, mode: spec.mode ?? "raw" }, 202);
  },
);

/** Its query is read by parseListQuery (any number of metadata filters besides the schema's fields), so it is documented, not validated, here. */
const listJobs = operation(
  createRoute({
    method: "get",
    path: "/",
    operationId: "listJobs",
    summary:
      "List jobs, newest first, as summaries (GET /v1/jobs/{id} has the whole job); `metadata[key]=value` filters by metadata",
    parameters: [...parametersOf(listJobsQuerySchema, "query"), METADATA_FILTER_PARAMETER],
    responses: { 200: json("JobList", "A page of job summaries"), ...errors({ 400: ["INVALID_REQUEST"] }) },
  }),
  async (c) => {
    const { query: q, metadata } = parseListQuery(new URL(c.req.url).searchParams);
    const cursor = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
    if (cursor === null) throw unknownCursor();
    const page = await readJobs(c.env.DB, c.get("account").id, { limit: q.limit, cursor, status: q.status, metadata });
    // Summaries (src/jobs/views/job-summary.ts): a page of whole jobs could outgrow the isolate's memory.
    return c.json({ data: page.rows.map(jobSummary), nextCursor: page.nextCursor });
  },
);

const getJob = operation(
  createRoute({
    method: "get",
    path: "/{id}",
    operationId: "getJob",
    summary: "Get a job (with ?wait=N, as soon as it is finished or after N ≤ 60 seconds)",
    request: { params: idParamSchema, query: getJobQuerySchema },
    responses: { 200: json("Job", "The job"), ...errors({ 400: ["INVALID_REQUEST"], 404: ["NOT_FOUND"] }) },
  }),
  async (c) => {
    const accountId = c.get("account").id;
    const id = c.req.valid("param").id;
    const wait = c.req.valid("query").wait;
    const deps = waitDeps(c.env, id, accountId, c.req.raw.signal);
    let { job, outputs } = wait ? await waitForTerminal(deps, wait) : await deps.read();
    if (job.status === "running") job = await withCoordinatorProgress(c.env, job);
    return c.json(await jobView(job, outputs, linksOf(c)));
  },
);

const cancelJob = operation(
  createRoute({
    method: "post",
    path: "/{id}/cancel",
    operationId: "cancelJob",
    summary: "Cancel a queued or running job",
    request: { params: idParamSchema },
    responses: {
      200: json("Job", "The canceled job"),
      ...errors({ 400: ["INVALID_REQUEST"], 404: ["NOT_FOUND"], 409: ["JOB_ALREADY_FINISHED"] }),
    },
  }),
  async (c) => {
    const accountId = c.get("account").id;
    const job = await requireJob(c.env.DB, c.req.valid("param").id, accountId);
    if (isTerminal(job.status)) alreadyFinished(job.status);
    const coordinator = coordinatorOf(c.env, job.id);
    await cancelOnRequest(createServices(c.env), job, coordinator, (work) => afterResponse(c, work));
    const after = await requireJobWithOutputs(c.env.DB, job.id, accountId);
    if (after.job.status !== "canceled") alreadyFinished(after.job.status);
    return c.json(await jobView(after.job, after.outputs, linksOf(c)));
  },
);

/** A finished job and its stored outputs, gone (204). A job still queued or running: cancel it first. */
const deleteJob = operation(
  createRoute({
    method: "delete",
    path: "/{id}",
    operationId: "deleteJob",
    summary: "Delete a finished job and its stored outputs (204)",
    request: { params: idParamSchema },
    responses: {
      204: { description: "Deleted" },
      ...errors({ 400: ["INVALID_REQUEST"], 404: ["NOT_FOUND"], 409: ["JOB_NOT_FINISHED"] }),
    },
  }),
  async (c) => {
    const job = await requireJob(c.env.DB, c.req.valid("param").id, c.get("account").id);
    if (!isTerminal(job.status)) {
      throw new ApiError("JOB_NOT_FINISHED", `The job is ${job.status}: cancel it, then delete it`, {
        extra: { status: job.status },
      });
    }
    // Rows first, bytes after (src/storage/delete-asset.ts): false only if another delete got there first.
    if (!(await deleteFinishedJob(c.env.DB, c.env.BUCKET, job.id)))
      throw new ApiError("NOT_FOUND", "No job with this id");
    return c.body(null, 204);
  },
);

function waitDeps(env: AppEnv["Bindings"], jobId: string, accountId: string, signal: AbortSignal) {
  return {
    read: () => requireJobWithOutputs(env.DB, jobId, accountId),
    wake: (ms: number) => coordinatorOf(env, jobId).waitForEnd(ms),
    signal,
  };
}

function alreadyFinished(status: string): never {
  throw new ApiError("JOB_ALREADY_FINISHED", `The job is already ${status}`, { extra: { status } });
}

/**
 * A running job's progress from its coordinator, which has it as the runner last reported it (D1
 * gets it every PROGRESS_SAVE_INTERVAL_MS); D1's if the coordinator cannot say (restarting).
 */
async function withCoordinatorProgress(env: AppEnv["Bindings"], job: JobRow): Promise<JobRow> {
  const snapshot = await coordinatorOf(env, job.id)
    .snapshot()
    .catch(() => null);
  return withPushedProgress(job, { woken: true, ended: false, snapshot });
}

/** `/v1/jobs`, in the document's order (the dry run and a job's details have files of their own). */
export const jobRoutes = new OpenAPIHono<AppEnv>();
serveOperations(
  jobRoutes,
  createJob,
  listJobs,
  validateJob,
  getJob,
  deleteJob,
  streamJobEvents,
  getJobResult,
  listJobTasks,
  getJobCommand,
  cancelJob,
);
