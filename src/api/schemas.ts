import { z } from "zod";
import { progressSchema } from "../jobs/views/job-progress.ts";
import { DIRECTORY_FILE_PATTERN, NAME_PATTERN, PROTOTYPE_NAME_MESSAGE, PROTOTYPE_NAMES } from "../jobs/request/placeholders.ts";
import { JOB_STATUSES } from "../jobs/transitions/job-states.ts";
import * as L from "../jobs/request/limits.ts";
import { outputMetadataSchema } from "../jobs/views/output-metadata.ts";
import { deliveredOutputSchema } from "../jobs/store/delivered-outputs.ts";

/** Request and response schemas: the validators and GET /openapi.json are both built from these. */

export const FILE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const name = z.string().regex(NAME_PATTERN, "names are 1-64 letters, digits or _").refine((n) => !PROTOTYPE_NAMES.has(n), PROTOTYPE_NAME_MESSAGE);
const uuid = z.string().regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, "must be a UUID");
const contentType = z.string().max(255).regex(/^[\w.+-]+\/[\w.+-]+$/, "must be a media type like video/mp4");
const fileName = z
  .string()
  .max(L.MAX_FILE_NAME_CHARS)
  .regex(FILE_NAME_PATTERN, "a plain file name: letters, digits, . _ -, no slash, not starting with a dot");
// The scheme as a pattern (case-insensitive by hand: JSON Schema has no flags), so the document states it too.
const httpUrl = z
  .string()
  .max(L.MAX_URL_LENGTH_CHARS)
  .regex(/^[Hh][Tt][Tt][Pp][Ss]?:\/\//, { message: "must be an http or https URL", abort: true })
  .refine((v) => URL.canParse(v), "must be a valid URL");

export const urlInputSchema = z.object({ type: z.literal("url"), url: httpUrl }).strict();
export const assetInputSchema = z.object({ type: z.literal("asset"), assetId: uuid }).strict();
/** Another job's file output (the account's own job): this job waits until that one has completed. */
export const jobOutputInputSchema = z.object({ type: z.literal("job"), jobId: uuid, output: name }).strict();
export const jobInputSchema = z.discriminatedUnion("type", [urlInputSchema, assetInputSchema, jobOutputInputSchema]);
/**
 * An output: one file, or a directory (HLS, image sequences) whose `fileName` is its main file and
 * may be an ffmpeg pattern (`frame_%04d.png`); every file the command writes there is stored.
 */
/**
 * Headers a destination may ask for: what S3, GCS and Azure presigned or SAS PUTs sign or need
 * (`x-amz-*`, `x-goog-*`, `x-ms-blob-type`, the content headers), nothing that would change the request
 * itself (Host, Authorization, Content-Length, Transfer-Encoding).
 */
export const DESTINATION_HEADER_PATTERN = /^(content-type|content-disposition|content-encoding|content-language|cache-control|content-md5|x-amz-[a-z0-9-]+|x-goog-[a-z0-9-]+|x-ms-[a-z0-9-]+)$/;
const destinationHeaders = z
  .record(z.string().regex(DESTINATION_HEADER_PATTERN, "a content header, or an x-amz-, x-goog- or x-ms- header, in lower case"), z.string().max(1024).regex(/^[\x20-\x7e]*$/, "visible ASCII"))
  .refine((h) => Object.keys(h).length <= 16, "at most 16 headers");
/**
 * An S3 multipart upload the client started (CreateMultipartUpload) and presigned: one UploadPart URL
 * per part, in order, and the CompleteMultipartUpload URL. The runner cuts the output into parts of
 * `partSizeBytes` (the last smaller), so the URLs must cover its size.
 */
export const destinationPartsSchema = z
  .object({
    urls: z.array(httpUrl).min(1).max(L.MAX_PARTS).describe("Presigned UploadPart URLs for parts 1, 2, …, in order."),
    partSizeBytes: z.number().int().min(L.MIN_PART_BYTES).max(L.MAX_PART_BYTES).describe("Every part's size but the last's: 5 MiB to 5 GiB, as S3 requires."),
    completeUrl: httpUrl.describe("The presigned CompleteMultipartUpload (POST) URL."),
  })
  .strict();
/**
 * Where the runner sends an output instead of the service's storage: one presigned (or SAS) PUT URL, or
 * `parts` of an S3 multipart upload for files over 5 GiB; for a directory output, a URL prefix (its path
 * ends in "/": an Azure container or directory SAS) each file is PUT under, with the prefix's query.
 */
export const outputDestinationSchema = z
  .object({
    url: httpUrl.optional(),
    parts: destinationPartsSchema.optional(),
    headers: destinationHeaders.optional(),
  })
  .strict()
  .refine((d) => (d.url === undefined) !== (d.parts === undefined), { message: "give either url (one PUT) or parts (an S3 multipart upload)" });

export const outputDeclarationSchema = z
  .object({
    fileName: z.string().max(L.MAX_FILE_NAME_CHARS).regex(DIRECTORY_FILE_PATTERN, "a plain file name: letters, digits, . _ - (and % patterns in a directory output), no slash, not starting with a dot"),
    contentType: contentType.optional(),
    kind: z.enum(["file", "directory"]).optional(),
    destination: outputDestinationSchema.optional(),
  })
  .strict()
  .refine((o) => o.kind === "directory" || !o.fileName.includes("%"), { path: ["fileName"], message: "% patterns name many files: declare the output with \"kind\": \"directory\"" })
  .refine((o) => o.kind !== "directory" || !o.destination?.parts, { path: ["destination", "parts"], message: "a directory's files are each PUT under a URL prefix: give url" })
  .refine((o) => o.kind !== "directory" || !o.destination?.url || isPrefixUrl(o.destination.url), {
    path: ["destination", "url"], message: "a directory's destination is a URL prefix: its path ends with \"/\" (each file is PUT under it, with its query)",
  });

/** A URL whose path ends with "/": a directory destination, each of whose files is PUT under it. */
export function isPrefixUrl(url: string): boolean {
  return URL.canParse(url) && new URL(url).pathname.endsWith("/");
}

const ffmpegArgs = z.array(z.string().max(L.MAX_ARG_LENGTH_CHARS)).min(1).max(L.MAX_ARGS);
/** One command of a multi-step job; `binary` defaults to the job's. */
export const jobStepSchema = z.object({ binary: z.enum(["ffmpeg", "ffprobe"]).optional(), ffmpegArgs }).strict();

/** The client's labels for a job: returned with it, in its webhooks, and a filter on the job list. */
export const METADATA_KEY_PATTERN = /^[A-Za-z0-9_.:-]+$/;
export const jobMetadataSchema = z
  .record(
    z.string().min(1).max(L.MAX_METADATA_KEY_CHARS).regex(METADATA_KEY_PATTERN, "keys are letters, digits and _ . : -").refine((k) => !PROTOTYPE_NAMES.has(k), PROTOTYPE_NAME_MESSAGE),
    z.string().max(L.MAX_METADATA_VALUE_CHARS),
  )
  .refine((m) => Object.keys(m).length <= L.MAX_METADATA_ENTRIES, `at most ${L.MAX_METADATA_ENTRIES} entries`);
/** Jobs (the account's own) that must complete before this one starts, when it reads none of their outputs. */
const dependsOn = z.array(uuid).min(1).max(L.MAX_INPUTS).refine((ids) => new Set(ids).size === ids.length, "each job once");
/** This job's time limit; the operator's JOB_TIMEOUT_SECONDS is the default and the most allowed. */
const timeoutSeconds = z.number().int().min(1).max(7 * 24 * 3600);

/** A split encode (issue 22): the video cut into segments encoded on containers of their own, then joined. */
export const parallelSchema = z
  .object({
    segmentSeconds: z.number().min(L.MIN_SEGMENT_SECONDS).max(L.MAX_SEGMENT_SECONDS),
    maxWorkers: z.number().int().min(2).max(L.MAX_SPLIT_WORKERS),
  })
  .strict();

/** `ffmpegArgs` (one command) or `steps` (1-8 commands in one workspace): exactly one of them. */
export const createJobSchema = z
  .object({
    mode: z.literal("raw").optional(),
    binary: z.enum(["ffmpeg", "ffprobe"]).default("ffmpeg"),
    inputs: z.record(name, jobInputSchema).refine((m) => Object.keys(m).length <= L.MAX_INPUTS, `at most ${L.MAX_INPUTS} inputs`).optional(),
    input: z.array(jobInputSchema).max(L.MAX_INPUTS).optional(),
    outputs: z.record(name, outputDeclarationSchema).refine((m) => Object.keys(m).length <= L.MAX_OUTPUTS, `at most ${L.MAX_OUTPUTS} outputs`).optional(),
    ffmpegArgs: ffmpegArgs.optional(),
    steps: z.array(jobStepSchema).min(1).max(L.MAX_STEPS).optional(),
    scratch: z.record(name, fileName).optional(),
    webhookUrl: z.lazy(() => webhookUrlSchema).optional(),
    metadata: jobMetadataSchema.optional(),
    timeoutSeconds: timeoutSeconds.optional(),
    dependsOn: dependsOn.optional(),
    parallel: parallelSchema.optional(),
  })
  .strict();
export type CreateJobRequest = z.infer<typeof createJobSchema>;

/** A job from a named recipe (GET /v1/presets): its parameters instead of ffmpegArgs. */
export const presetJobSchema = z
  .object({
    mode: z.literal("preset"),
    preset: z.string().min(1).max(64),
    inputs: z.record(name, jobInputSchema).refine((m) => Object.keys(m).length <= L.MAX_INPUTS, `at most ${L.MAX_INPUTS} inputs`).optional(),
    input: z.array(jobInputSchema).max(L.MAX_INPUTS).optional(),
    params: z.record(z.string(), z.unknown()).optional(),
    outputs: z.record(name, z.object({ fileName }).strict()).optional(),
    webhookUrl: z.lazy(() => webhookUrlSchema).optional(),
    metadata: jobMetadataSchema.optional(),
    timeoutSeconds: timeoutSeconds.optional(),
    dependsOn: dependsOn.optional(),
    parallel: parallelSchema.optional(),
  })
  .strict();
export type PresetJobRequest = z.infer<typeof presetJobSchema>;

/** An upload slot; `contentType` defaults from the file name's extension, as for outputs. */
export const createFileSchema = z
  .object({
    fileName,
    contentType: contentType.optional(),
    size: z.number().int().min(0).max(L.MAX_UPLOAD_BYTES).optional(),
    /** Upload in parts (S3 multipart): needed above 5 GiB, and resumable part by part. */
    multipart: z.boolean().optional(),
    partSizeBytes: z.number().int().min(L.MIN_PART_BYTES).max(L.MAX_PART_BYTES).optional(),
  })
  .strict()
  .refine((b) => !b.multipart || b.size !== undefined, { path: ["size"], message: "a multipart upload needs the file's size" })
  .refine((b) => b.multipart === true || (b.size ?? 0) <= L.MAX_SINGLE_PUT_BYTES, { path: ["multipart"], message: `a file over ${L.MAX_SINGLE_PUT_BYTES} bytes is uploaded in parts: set "multipart": true` })
  .refine((b) => b.partSizeBytes === undefined || b.multipart === true, { path: ["partSizeBytes"], message: "only a multipart upload has parts" })
  .refine((b) => b.partSizeBytes === undefined || Math.ceil((b.size ?? 0) / b.partSizeBytes) <= L.MAX_PARTS, { path: ["partSizeBytes"], message: `at most ${L.MAX_PARTS} parts: choose larger parts` });

export const partUrlsRequestSchema = z
  .object({ partNumbers: z.array(z.number().int().min(1).max(L.MAX_PARTS)).min(1).max(L.MAX_PART_URLS_PER_REQUEST) })
  .strict();

export const completeUploadSchema = z
  .object({ parts: z.array(z.object({ partNumber: z.number().int().min(1).max(L.MAX_PARTS), etag: z.string().min(1).max(256) }).strict()).min(1).max(L.MAX_PARTS) })
  .strict();


export const listFilesQuerySchema = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(20),
    cursor: z.string().max(512).optional(),
    origin: z.enum(["upload", "output"]).optional(),
  })
  .strict();

export const listJobsQuerySchema = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(20),
    cursor: z.string().max(512).optional(),
    status: z.enum(JOB_STATUSES).optional(),
  })
  .strict();

/** An `Idempotency-Key` header: 1-255 visible ASCII characters. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** `?metadata[key]=value` filters on the job list (all must match). */
export const METADATA_FILTER = /^metadata\[([^\]]*)\]$/;

export const idParamSchema = z.object({ id: uuid });

/** `POST /v1/jobs/validate?probe=…`: a boolean as query strings carry one (1 and 0 read alike; anything else is refused). */
export const validateJobQuerySchema = z.object({ probe: z.enum(["true", "false", "1", "0"]).optional() }).strict();

export const getJobQuerySchema = z
  .object({ wait: z.coerce.number().int().min(0).max(L.MAX_WAIT_SECONDS).optional() })
  .strict();

// zod runs every refinement even after one failed, so each must be safe on any string.
export const webhookUrlSchema = httpUrl.refine((v) => !URL.canParse(v) || (!new URL(v).username && !new URL(v).password), "must not contain credentials");

export const webhookTestSchema = z.object({ url: webhookUrlSchema }).strict();

export const listDeliveriesQuerySchema = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(20),
    cursor: z.string().max(512).optional(),
    jobId: uuid.optional(),
  })
  .strict();

/** GET /v1/admin/metrics: a period of at most METRICS_RETENTION_DAYS (default: the last 24 h), for one account or all. */
export const metricsQuerySchema = z
  .object({
    since: z.iso.datetime({ offset: true }).optional().describe("Start of the period (rounded down to the hour); default: 24 h before `until`."),
    until: z.iso.datetime({ offset: true }).optional().describe("End of the period (rounded up to the hour); default: now."),
    account: z.string().regex(/^[A-Za-z0-9_.@-]{1,64}$/).optional().describe("An account's name: only its figures."),
  })
  .strict();

// ---- responses (documentation and response tests) ----
const timestamp = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

export const outputSchema = z.object({
  id: uuid,
  jobId: uuid,
  assetId: uuid,
  label: z.string(),
  contentType: z.string(),
  kind: z.enum(["file", "directory"]),
  metadata: outputMetadataSchema.nullable(),
  createdAt: timestamp,
  /** A directory's main file (its playlist, or the first image of a sequence). */
  downloadUrl: z.string(),
  /** Directory outputs: every stored file, by path inside the directory, each with its own URL. */
  files: z.array(z.object({ path: z.string(), size: z.number().int(), contentType: z.string(), downloadUrl: z.string() })).optional(),
});


/** Where a finished job's time went (src/jobs/views/job-timings.ts), ms. */
export const timingsSchema = z.object({
  queuedMs: z.number().int(),
  fetchMs: z.number().int(),
  runMs: z.number().int(),
  storeMs: z.number().int(),
  finishMs: z.number().int(),
});

export const jobSchema = z.object({
  id: uuid,
  binary: z.enum(["ffmpeg", "ffprobe"]),
  mode: z.enum(["preset", "raw"]),
  status: z.enum(JOB_STATUSES),
  /** A queued job that waits on something besides capacity: the jobs whose outputs it reads (job chains). */
  /** Jobs that must complete before this one starts (`dependsOn` as created; empty if none). */
  dependsOn: z.array(uuid),
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
  steps: z.array(z.object({ binary: z.enum(["ffmpeg", "ffprobe"]), ffmpegArgs: z.array(z.string()) })).nullable(),
  scratch: z.record(z.string(), z.string()).nullable(),
  /** Multi-step jobs: the index in `steps` of the step that failed (or was running when the job ended). */
  failedStep: z.number().int().nullable(),
  inputs: z.record(z.string(), jobInputSchema),
  outputDeclarations: z.record(z.string(), z.object({
    fileName: z.string(),
    contentType: z.string(),
    kind: z.enum(["file", "directory"]).optional(),
    /** Shown without its signature: the URL without query, the headers' names. */
    destination: z.object({ url: z.string(), headers: z.array(z.string()), parts: z.object({ count: z.number().int(), partSizeBytes: z.number().int() }).optional() }).optional(),
  })),
  /** Outputs sent to the client's own storage (`destination`): where, how big, their SHA-256 and the storage's ETag. */
  deliveredOutputs: z.array(deliveredOutputSchema),
  preset: z.string().nullable(),
  params: z.record(z.string(), z.unknown()).nullable(),
  /**
   * Preset jobs: the arguments the runner planned from what the inputs are, and ran (null until then, and for
   * raw jobs). `ffmpegArgs` is the same preset planned for a typical input (video and audio, 8-bit, progressive).
   */
  plannedArgs: z.array(z.string()).nullable(),
  /**
   * Per input, once the job ran: `bytesRead` the bytes its commands read, `originBytes` those fetched from
   * the input's origin (inputs are read by range while the job runs; `copied`: downloaded whole first,
   * for an origin without ranges or a file a filter opens). Not billed; bounded per job (docs/api.md).
   */
  inputReads: z.record(z.string(), z.object({ bytesRead: z.number().int(), originBytes: z.number().int(), copied: z.boolean() })).nullable(),
  webhookUrl: z.string().nullable(),
  metadata: z.record(z.string(), z.string()),
  timeoutSeconds: z.number().int(),
  /** A split encode's request (`parallel` as created); null for other jobs. */
  parallel: parallelSchema.nullable(),
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
  /** "whole": why the job ran as one command instead of in segments; "join": why the segments are longer than asked (the cap on their count), else null. */
  reason: z.string().nullable(),
});
export const jobTaskListSchema = z.object({ data: z.array(jobTaskSchema) });

export const jobAcceptedSchema = jobSchema.pick({ id: true, binary: true, status: true, mode: true });

export const jobResultSchema = z.object({
  id: uuid,
  status: z.enum(JOB_STATUSES),
  binary: z.enum(["ffmpeg", "ffprobe"]),
  exitCode: z.number().int().nullable(),
  runtimeSeconds: z.number().int(),
  creditsCharged: z.number().int(),
  errorCode: z.string().nullable(),
  errorMessage: z.string().nullable(),
  outputs: z.array(outputSchema),
  stdout: z.string().nullable(),
  stderrTail: z.string().nullable(),
  failedStep: z.number().int().nullable(),
  probe: z.record(z.string(), z.unknown()).nullable(),
  timings: timingsSchema.nullable(),
  finishedAt: timestamp.nullable(),
});

export const assetSchema = z.object({
  id: uuid,
  fileName: z.string(),
  contentType: z.string(),
  size: z.number().int().nullable(),
  /** `expired`: retention deleted its bytes (the record stays). */
  status: z.enum(["pending", "ready", "expired"]),
  /** `upload` (sent by a client) or `output` (stored by a job, `jobId`). */
  origin: z.enum(["upload", "output"]),
  jobId: uuid.nullable(),
  createdAt: timestamp,
  /** When retention deletes its bytes (UPLOAD_RETENTION_DAYS, OUTPUT_RETENTION_DAYS). */
  expiresAt: timestamp.nullable(),
  /**
   * Only when the slot is created: one presigned PUT, or for a multipart upload the plan of its parts
   * (part URLs from `POST /v1/files/{id}/parts`, then `POST /v1/files/{id}/complete`).
   */
  upload: z
    .union([
      z.object({ url: z.string(), method: z.literal("PUT"), headers: z.record(z.string(), z.string()), expiresAt: timestamp }),
      z.object({ method: z.literal("multipart"), partSizeBytes: z.number().int(), partCount: z.number().int(), headers: z.record(z.string(), z.string()) }),
    ])
    .optional(),
});

const presignedPut = z.object({ url: z.string(), method: z.literal("PUT"), expiresAt: timestamp });
export const partUrlsSchema = z.object({ parts: z.array(presignedPut.extend({ partNumber: z.number().int() })) });

/**
 * A job as `GET /v1/jobs` lists it: its state, cost, labels and a cut command line, every field
 * bounded in size (src/jobs/views/job-summary.ts). The request (arguments, inputs, outputs), the outputs
 * and their URLs are in the job's own `GET /v1/jobs/{id}`, stdout and stderr in its result.
 */
export const jobSummarySchema = jobSchema
  .pick({
    id: true, binary: true, mode: true, status: true, queuedReason: true, preset: true, metadata: true, progress: true, attempts: true,
    runtimeSeconds: true, creditsCharged: true, timings: true, errorCode: true, errorMessage: true, failedStep: true,
    createdAt: true, startedAt: true, finishedAt: true,
  })
  .extend({
    command: z.string().describe(
      `The job's command line as one shell line (the planned arguments of a preset job that ran, else as created; a multi-step job's commands joined with &&), cut to ${L.COMMAND_PREVIEW_CHARS} characters ending in … (the job's own GET has its arguments whole).`,
    ),
    errorMessage: z.string().nullable().describe(`As in the job's own GET, cut to ${L.ERROR_PREVIEW_CHARS} characters ending in … if longer.`),
  })
  .describe("A job as lists show it; GET /v1/jobs/{id} has the whole job (request, outputs and their URLs), its /result the stdout and stderr.");

export const jobListSchema = z.object({ data: z.array(jobSummarySchema), nextCursor: z.string().nullable() });
export const accountSchema = z.object({
  id: uuid,
  name: z.string(),
  /** null: unlimited. */
  creditBalance: z.number().int().nullable(),
  creditsUsed: z.number().int(),
  jobsByStatus: z.record(z.string(), z.number().int()),
});
export const assetListSchema = z.object({ data: z.array(assetSchema.omit({ upload: true })), nextCursor: z.string().nullable() });

export const errorSchema = z.object({
  error: z.string(),
  code: z.string(),
  /** 409s about a job's state (JOB_NOT_FINISHED, JOB_ALREADY_FINISHED): the status it is in. */
  status: z.string().optional(),
  details: z.array(z.object({ path: z.array(z.string()), message: z.string(), code: z.string() })).optional(),
});

export const webhookSecretSchema = z.object({ secret: z.string(), createdAt: timestamp, previousSecretExpiresAt: timestamp.nullable() });

export const webhookTestResultSchema = z.object({
  ok: z.boolean(),
  status: z.number().int(),
  deliveryId: uuid,
  secretPreview: z.string(),
  error: z.string().optional(),
});

export const deliverySchema = z.object({
  id: uuid,
  eventId: z.string(),
  eventType: z.string(),
  jobId: uuid.nullable(),
  url: z.string(),
  status: z.enum(["pending", "succeeded", "failed"]),
  attemptCount: z.number().int(),
  createdAt: timestamp,
  updatedAt: timestamp,
  attempts: z.array(
    z.object({ attemptedAt: timestamp, httpStatus: z.number().int().nullable(), errorKind: z.string().nullable(), error: z.string().nullable(), latencyMs: z.number().int() }),
  ),
});

