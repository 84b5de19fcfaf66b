import { createRoute } from "@hono/zod-openapi";
import { ApiError } from "../api-error.ts";
import { operation } from "../operation.ts";
import { errors, json } from "../openapi-responses.ts";
import { idParamSchema } from "../schemas/common.ts";
import { jobEventStream, KEEPALIVE_MS } from "./job-events.ts";
import { coordinatorOf, linksOf, requireJob, requireJobWithOutputs } from "./job-lookup.ts";
import { tickFeedReader } from "./tick-feed.ts";
import { RUNNER_IO_URL_TTL_SECONDS } from "../../jobs/request/limits.ts";
import { runnerInputs } from "../../jobs/runner-request/runner-inputs.ts";
import { listTasks } from "../../jobs/split/task-store.ts";
import { tasksView } from "../../jobs/split/task-view.ts";
import { listOutputs } from "../../jobs/store/output-store.ts";
import { jobSpecOf, plannedArgsOf } from "../../jobs/store/job-store.ts";
import { isTerminal } from "../../jobs/transitions/job-states.ts";
import { jobResultView, jobView } from "../../jobs/views/job-view.ts";
import { jobReceipt } from "../../jobs/views/job-receipt.ts";
import { reproduceScript } from "../../jobs/views/reproduce-script.ts";
import { createServices } from "../../services.ts";

/** A job beyond its own GET: its event stream, its result, its tasks, and a script that runs it again (served by jobs.ts). */

export const streamJobEvents = operation(
  createRoute({
    method: "get",
    path: "/{id}/events",
    operationId: "streamJobEvents",
    summary:
      "Server-Sent Events: the job, then `progress` and `status` events (each with the full job) until it is terminal; resumable with Last-Event-ID",
    parameters: [{ name: "Last-Event-ID", in: "header", schema: { type: "string" } }],
    request: { params: idParamSchema },
    responses: {
      200: { description: "An event stream", content: { "text/event-stream": { schema: { type: "string" } } } },
      ...errors({ 400: ["INVALID_REQUEST"], 404: ["NOT_FOUND"] }),
    },
  }),
  async (c) => {
    const accountId = c.get("account").id;
    const { id } = c.req.valid("param");
    await requireJob(c.env.DB, id, accountId);
    // One call to the coordinator for the stream's life, not one per tick (a subrequest each).
    const feed = tickFeedReader(() => coordinatorOf(c.env, id).tickFeed(KEEPALIVE_MS));
    const stream = jobEventStream(
      {
        read: () => requireJob(c.env.DB, id, accountId),
        // Outputs are recorded with the terminal state: before it there are none to read.
        view: async (job) =>
          jobView(job, isTerminal(job.status) ? await listOutputs(c.env.DB, [job.id]) : [], linksOf(c)),
        tick: feed.tick,
        close: feed.close,
      },
      c.req.header("Last-Event-ID") ?? null,
    );
    return new Response(stream, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
  },
);

export const getJobResult = operation(
  createRoute({
    method: "get",
    path: "/{id}/result",
    operationId: "getJobResult",
    summary: "A finished job's result",
    request: { params: idParamSchema },
    responses: {
      200: json("JobResult", "The result"),
      ...errors({ 400: ["INVALID_REQUEST"], 404: ["NOT_FOUND"], 409: ["JOB_NOT_FINISHED"] }),
    },
  }),
  async (c) => {
    const { job, outputs } = await requireJobWithOutputs(c.env.DB, c.req.valid("param").id, c.get("account").id);
    if (!isTerminal(job.status)) {
      throw new ApiError("JOB_NOT_FINISHED", `The job is ${job.status}; its result exists once it finishes`, {
        extra: { status: job.status },
      });
    }
    const receipt = await jobReceipt(c.env.DB, job, outputs, new Date());
    return c.json(await jobResultView(job, outputs, linksOf(c), receipt));
  },
);

/** A split job's tasks (src/jobs/split/): what ran where, how often, how long. */
export const listJobTasks = operation(
  createRoute({
    method: "get",
    path: "/{id}/tasks",
    operationId: "listJobTasks",
    summary:
      "A split job's tasks (its segments, its audio, the join; or why it ran whole), with their state and run time; empty for other jobs and before the plan",
    request: { params: idParamSchema },
    responses: {
      200: json("JobTaskList", "The tasks, in plan order"),
      ...errors({ 400: ["INVALID_REQUEST"], 404: ["NOT_FOUND"] }),
    },
  }),
  async (c) => {
    const job = await requireJob(c.env.DB, c.req.valid("param").id, c.get("account").id);
    return c.json({ data: tasksView(await listTasks(c.env.DB, job.id)) });
  },
);

/** A shell script that runs the job again with a local ffmpeg (src/jobs/views/reproduce-script.ts). */
export const getJobCommand = operation(
  createRoute({
    method: "get",
    path: "/{id}/command",
    operationId: "getJobCommand",
    summary:
      "A shell script that runs the job again with a local ffmpeg: inputs fetched with curl, each step's resolved command, outputs named as in the job",
    request: { params: idParamSchema },
    responses: {
      200: { description: "The script (POSIX sh)", content: { "text/x-shellscript": { schema: { type: "string" } } } },
      ...errors({ 400: ["INVALID_REQUEST"], 404: ["NOT_FOUND"] }),
    },
  }),
  async (c) => {
    const job = await requireJob(c.env.DB, c.req.valid("param").id, c.get("account").id);
    const spec = jobSpecOf(job);
    const inputs = await runnerInputs(createServices(c.env), spec, job.account_id, { skipMissing: true });
    const expires = new Date(Date.now() + RUNNER_IO_URL_TTL_SECONDS * 1000).toISOString();
    const script = reproduceScript(
      { id: job.id, status: job.status, createdAt: job.created_at, plannedArgs: plannedArgsOf(job) },
      spec,
      inputs,
      expires,
    );
    return c.body(script, 200, {
      "content-type": "text/x-shellscript; charset=utf-8",
      "content-disposition": `inline; filename="ffjobs-${job.id}.sh"`,
      "cache-control": "no-store",
    });
  },
);
