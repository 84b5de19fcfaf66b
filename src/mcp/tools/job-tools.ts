import { z } from "zod";
import { createJobSchema } from "../../api/schemas/job-request.ts";
import { listJobsQuerySchema } from "../../api/schemas/jobs.ts";
import { presetJobSchema } from "../../api/schemas/presets.ts";
import { templateJobSchema } from "../../api/schemas/templates.ts";
import { uuid } from "../../api/schemas/common.ts";
import { answerOf, idArgument } from "../tool-answers.ts";
import type { Tool, ToolAnswer, ToolContext } from "../tool.ts";
import { MCP_MAX_WAIT_SECONDS, waitForJob, waitSecondsOf } from "../wait-for-job.ts";
import { queryOf } from "./query-of.ts";

const waitSeconds = z
  .number()
  .int()
  .min(0)
  .max(MCP_MAX_WAIT_SECONDS)
  .optional()
  .describe(
    `How long to wait for the job to end (default and most ${MCP_MAX_WAIT_SECONDS}); a job still running then comes back with stillRunning: true, to wait for with wait_for_job.`,
  );
const jobId = z.object({ id: uuid.describe("The job's id") });

/** Creates the job, ties it to the call (a cancelled call cancels it), and waits for it. */
async function createAndWait(body: Record<string, unknown>, ctx: ToolContext) {
  const { waitSeconds: asked, ...job } = body;
  const wait = waitSecondsOf(asked);
  if ("refused" in wait) return wait.refused;
  const created = answerOf(await ctx.api("POST", "/v1/jobs", job));
  if (!created.ok) return created;
  const id = (created.value as { id: string }).id;
  await ctx.jobCreated(id);
  return waitForJob(id, wait.seconds, ctx);
}

/** A tool on one job: its `id` checked to be a UUID before it goes into the API's path. */
const onJob =
  (run: (id: string, args: Record<string, unknown>, ctx: ToolContext) => Promise<ToolAnswer>) =>
  (args: Record<string, unknown>, ctx: ToolContext) => {
    const got = idArgument(args);
    return "refused" in got ? Promise.resolve(got.refused) : run(got.id, args, ctx);
  };

/** The job tools: run (raw or preset), wait, validate, read, cancel, list. */
export const jobTools: Tool[] = [
  {
    name: "run_job",
    title: "Run an ffmpeg or ffprobe command",
    description:
      "Creates a job from raw ffmpeg/ffprobe arguments (inputs and outputs named, referenced as {{name}} in ffmpegArgs) and waits for it, reporting progress. Returns the job: status, outputs with download URLs, runtime, credits; errorCode and errorMessage when it failed. Cancelling the call cancels the job. Check a command first with validate_job.",
    input: createJobSchema.extend({ waitSeconds }),
    run: createAndWait,
  },
  {
    name: "run_preset",
    title: "Run a named preset",
    description:
      "Creates a job from a preset (see list_presets for their inputs and params) and waits for it, reporting progress. Returns the job as run_job does. Cancelling the call cancels the job.",
    input: presetJobSchema.omit({ mode: true }).extend({ waitSeconds }),
    run: (args, ctx) => createAndWait({ ...args, mode: "preset" }, ctx),
  },
  {
    name: "run_template",
    title: "Run a job template",
    description:
      "Creates a job from one of the account's templates (see list_templates for their variables) with the variables' values, and waits for it, reporting progress. Returns the job as run_job does. Cancelling the call cancels the job.",
    input: templateJobSchema.extend({ waitSeconds }),
    run: createAndWait,
  },
  {
    name: "wait_for_job",
    title: "Wait for a job",
    description:
      "Waits for a job to end, reporting progress; returns the job (stillRunning: true if it has not ended yet).",
    input: jobId.extend({ waitSeconds }),
    readOnly: true,
    run: onJob(async (id, args, ctx) => {
      const wait = waitSecondsOf(args.waitSeconds);
      return "refused" in wait ? wait.refused : waitForJob(id, wait.seconds, ctx);
    }),
  },
  {
    name: "validate_job",
    title: "Check a job without running it",
    description:
      'A dry run: says whether the job (raw, a preset with mode: "preset", or a template with template and vars) would be accepted, with the errors creation would give or the command lines the runner would execute; probe: true also probes the inputs and estimates the credits.',
    input: z.object({
      job: z.union([createJobSchema, presetJobSchema, templateJobSchema]),
      probe: z.boolean().optional().describe("Also probe the inputs and estimate the credits"),
    }),
    readOnly: true,
    run: async (args, ctx) =>
      answerOf(await ctx.api("POST", `/v1/jobs/validate${queryOf({ probe: args.probe })}`, args.job)),
  },
  {
    name: "get_job",
    title: "Get a job",
    description: "The job as it is now: status, progress, outputs with download URLs, runtime, credits, error.",
    input: jobId,
    readOnly: true,
    run: onJob(async (id, _args, ctx) => answerOf(await ctx.api("GET", `/v1/jobs/${id}`))),
  },
  {
    name: "get_job_result",
    title: "Get a finished job's result",
    description: "A finished job's exit code, stdout (ffprobe's JSON parsed as probe) and stderr.",
    input: jobId,
    readOnly: true,
    run: onJob(async (id, _args, ctx) => answerOf(await ctx.api("GET", `/v1/jobs/${id}/result`))),
  },
  {
    name: "cancel_job",
    title: "Cancel a job",
    description: "Cancels a queued or running job.",
    input: jobId,
    destructive: true,
    run: onJob(async (id, _args, ctx) => answerOf(await ctx.api("POST", `/v1/jobs/${id}/cancel`))),
  },
  {
    name: "list_jobs",
    title: "List jobs",
    description: "The account's jobs, newest first, a page at a time (nextCursor for the next).",
    input: listJobsQuerySchema,
    readOnly: true,
    run: async (args, ctx) => answerOf(await ctx.api("GET", `/v1/jobs${queryOf(args)}`)),
  },
];
