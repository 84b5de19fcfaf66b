import { z } from "zod";
import { progressSchema } from "../../jobs/views/job-progress.ts";
import { JOB_STATUSES } from "../../jobs/transitions/job-states.ts";
import * as L from "../../jobs/request/limits.ts";
import { outputMetadataSchema } from "../../jobs/views/output-metadata.ts";
import { timingsSchema } from "../../jobs/views/job-timings.ts";
import { deliveredOutputSchema } from "../../jobs/store/delivered-outputs.ts";
import { binary, pageQuery, timestamp, uuid } from "./common.ts";
import { jobInputSchema, parallelSchema } from "./job-request.ts";
import { checkResultSchema, onFailedCheckSchema, outputChecksSchema } from "../../jobs/checks/output-checks.ts";
import { receiptSchema } from "../../jobs/views/job-receipt.ts";
import { presetReportSchema } from "../../jobs/views/preset-report.ts";

/** Jobs as clients read them (the job, its result, its tasks, a page of summaries) and the queries that read them. */

export const listJobsQuerySchema = z.object({ ...pageQuery, status: z.enum(JOB_STATUSES).optional() }).strict();

export const getJobQuerySchema = z
  .object({ wait: z.coerce.number().int().min(0).max(L.MAX_WAIT_SECONDS).optional() })
  .strict();

/** `POST /v1/jobs/validate?probe=…`: a boolean as query strings carry one (1 and 0 read alike; anything else is refused). */
export const validateJobQuerySchema = z
  .object({
    probe: z
      .enum(["true", "false", "1", "0"])
      .optional()
      .meta({
        param: {
          schema: { type: "boolean" },
          description: "true: also probe the inputs (1 and 0 are read as true and false; anything else is a 400)",
        },
      }),
  })
  .strict();

export const outputSchema = z.object({
  id: uuid,
  jobId: uuid,
  assetId: uuid,
  label: z.string(),
  contentType: z.string(),
  kind: z.enum(["file", "directory"]),
  metadata: outputMetadataSchema.nullable(),
  /** The stored file's SHA-256 (hex), as its runner read it; null for a directory. */
  sha256: z.string().nullable(),
  /** Its checks' results (src/jobs/checks/); empty when it had none. */
  checks: z.array(checkResultSchema),
  createdAt: timestamp,
  /** A directory's main file (its playlist, or the first image of a sequence). */
  downloadUrl: z.string(),
  /** Directory outputs: every stored file, by path inside the directory, each with its own URL. */
  files: z
    .array(z.object({ path: z.string(), size: z.number().int(), contentType: z.string(), downloadUrl: z.string() }))
    .optional(),
});

export const jobSchema = z.object({
  id: uuid,
  binary,
  mode: z.enum(["preset", "raw"]),
  status: z.enum(JOB_STATUSES),
  /** Jobs that must complete before this one starts (`dependsOn` as created; empty if none). */
  dependsOn: z.array(uuid),
  /** A queued job that waits on something besides capacity: the jobs whose outputs it reads (job chains). */
  queuedReason: z.string().nullable(),
  runtimeSeconds: z.number().int(),
  creditsCharged: z.number().int(),
  attempts: z.number().int(),
  timings: timingsSchema.nullable(),
  errorCode: z.string().nullable(),
  errorMessage: z.string().nullable(),
  createdAt: timestamp,
  startedAt: timestamp.nullable(),
  finishedAt: timestamp.nullable(),
  outputs: z.array(outputSchema),
  progress: progressSchema.nullable(),
  ffmpegArgs: z.array(z.string()),
  /** Multi-step jobs: their commands (then `ffmpegArgs` is empty); null for one-command jobs. */
  steps: z.array(z.object({ binary, ffmpegArgs: z.array(z.string()) })).nullable(),
  scratch: z.record(z.string(), z.string()).nullable(),
  /** Multi-step jobs: the index in `steps` of the step that failed (or was running when the job ended). */
  failedStep: z.number().int().nullable(),
  inputs: z.record(z.string(), jobInputSchema),
  outputDeclarations: z.record(
    z.string(),
    z.object({
      fileName: z.string(),
      contentType: z.string(),
      kind: z.enum(["file", "directory"]).optional(),
      checks: outputChecksSchema.optional(),
      /** Shown without its signature: the URL without query, the headers' names. */
      destination: z
        .object({
          url: z.string(),
          headers: z.array(z.string()),
          parts: z.object({ count: z.number().int(), partSizeBytes: z.number().int() }).optional(),
        })
        .optional(),
    }),
  ),
  /** Outputs sent to the client's own storage (`destination`): where, how big, their SHA-256 and the storage's ETag. */
  deliveredOutputs: z.array(deliveredOutputSchema),
  preset: z.string().nullable(),
  params: z.record(z.string(), z.unknown()).nullable(),
  /** A job made from a template (POST /v1/jobs with `template`): its name and the version that ran. */
  template: z.object({ name: z.string(), version: z.number().int() }).nullable(),
  /**
   * Preset jobs: the arguments the runner planned from what the inputs are, and ran (null until then, and for
   * raw jobs). `ffmpegArgs` is the same preset planned for a typical input (video and audio, 8-bit, progressive).
   */
  plannedArgs: z.array(z.string()).nullable(),
  /**
   * Preset jobs that ran: what the preset measured of its inputs and decided as it planned; null otherwise.
   * `loudness` (the loudnorm preset): the first pass's measures `before`, the output's `after` (its
   * loudness check's, after the encode), and the `mode` that ran (`linear`: one gain; `dynamic`: loudnorm's
   * compression and limiting, where one gain would pass the true-peak ceiling; `none`: a silent input) with its `reason`.
   */
  presetReport: presetReportSchema.nullable(),
  /**
   * Per input, once the job ran: `bytesRead` the bytes its commands read, `originBytes` those fetched from
   * the input's origin (inputs are read by range while the job runs; `copied`: downloaded whole first,
   * for an origin without ranges or a file a filter opens). Not billed; bounded per job (docs/api.md).
   */
  inputReads: z
    .record(z.string(), z.object({ bytesRead: z.number().int(), originBytes: z.number().int(), copied: z.boolean() }))
    .nullable(),
  webhookUrl: z.string().nullable(),
  metadata: z.record(z.string(), z.string()),
  timeoutSeconds: z.number().int(),
  /** A split encode's request (`parallel` as created); null for other jobs. */
  parallel: parallelSchema.nullable(),
  /** Each output's check results, by output name, once the job ended (a job failed by its checks has no outputs: they are here). */
  checks: z.record(z.string(), z.array(checkResultSchema)),
  onFailedCheck: onFailedCheckSchema,
});

/** A split job's task (GET /v1/jobs/{id}/tasks): a segment, the audio, the join, or the job run whole. */
export const jobTaskSchema = z.object({
  name: z.string(),
  kind: z.enum(["segment", "audio", "join", "whole"]),
  status: z.enum(["pending", "running", "completed", "failed"]),
  /** Runner attempts: more than one when a runner was lost and the task ran again alone. */
  attempts: z.number().int(),
  /** The binary's run time over its attempts, billed as part of the job's. */
  runtimeSeconds: z.number(),
  /** A segment's cut of the video, in the input's own timestamps (`endSeconds` null: to the end). */
  startSeconds: z.number().nullable(),
  endSeconds: z.number().nullable(),
  startedAt: timestamp.nullable(),
  finishedAt: timestamp.nullable(),
  errorMessage: z.string().nullable(),
  /**
   * "whole": why the job ran as one command instead of in segments; "join": why the segments are longer
   * than asked (the cap on their count); "segment": that its cut moved to a change of scene, and from where; else null.
   */
  reason: z.string().nullable(),
  /**
   * The join's report on each join of a constant-rate output (MP4, MOV): where it is (the input's
   * time), the SSIM against what the encoder was fed of the two frames each side of it, and of the six
   * each side around those. Null on other tasks, and where no segment could compare its edges.
   */
  seams: z.array(z.object({ atSeconds: z.number(), ssim: z.number(), aroundSsim: z.number() })).nullable(),
});
export const jobTaskListSchema = z.object({ data: z.array(jobTaskSchema) });

export const jobAcceptedSchema = jobSchema.pick({ id: true, binary: true, status: true, mode: true });

export const jobResultSchema = z.object({
  id: uuid,
  status: z.enum(JOB_STATUSES),
  binary,
  exitCode: z.number().int().nullable(),
  runtimeSeconds: z.number().int(),
  creditsCharged: z.number().int(),
  errorCode: z.string().nullable(),
  errorMessage: z.string().nullable(),
  outputs: z.array(outputSchema),
  checks: z.record(z.string(), z.array(checkResultSchema)),
  /** What the job published and what was proven about it, signed with the account's webhook secret (docs/api.md, Receipts). */
  receipt: receiptSchema,
  stdout: z.string().nullable(),
  stderrTail: z.string().nullable(),
  failedStep: z.number().int().nullable(),
  probe: z.record(z.string(), z.unknown()).nullable(),
  timings: timingsSchema.nullable(),
  finishedAt: timestamp.nullable(),
});

/**
 * A job as `GET /v1/jobs` lists it: its state, cost, labels and a cut command line, every field
 * bounded in size (src/jobs/views/job-summary.ts). The request (arguments, inputs, outputs), the outputs
 * and their URLs are in the job's own `GET /v1/jobs/{id}`, stdout and stderr in its result.
 */
export const jobSummarySchema = jobSchema
  .pick({
    id: true,
    binary: true,
    mode: true,
    status: true,
    queuedReason: true,
    preset: true,
    metadata: true,
    progress: true,
    attempts: true,
    runtimeSeconds: true,
    creditsCharged: true,
    timings: true,
    errorCode: true,
    errorMessage: true,
    failedStep: true,
    createdAt: true,
    startedAt: true,
    finishedAt: true,
  })
  .extend({
    command: z
      .string()
      .describe(
        `The job's command line as one shell line (the planned arguments of a preset job that ran, else as created; a multi-step job's commands joined with &&), cut to ${L.COMMAND_PREVIEW_CHARS} characters ending in … (the job's own GET has its arguments whole).`,
      ),
    errorMessage: z
      .string()
      .nullable()
      .describe(`As in the job's own GET, cut to ${L.ERROR_PREVIEW_CHARS} characters ending in … if longer.`),
  })
  .describe(
    "A job as lists show it; GET /v1/jobs/{id} has the whole job (request, outputs and their URLs), its /result the stdout and stderr.",
  );

export const jobListSchema = z.object({ data: z.array(jobSummarySchema), nextCursor: z.string().nullable() });
