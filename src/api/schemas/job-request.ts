import { z } from "zod";
import { DIRECTORY_FILE_PATTERN, PROTOTYPE_NAME_MESSAGE, PROTOTYPE_NAMES } from "../../jobs/request/placeholders.ts";
import * as L from "../../jobs/request/limits.ts";
import { binary, contentType, fileName, httpUrl, name, uuid } from "./common.ts";
import { webhookUrlSchema } from "./webhooks.ts";
import { onFailedCheckSchema, outputChecksSchema } from "../../jobs/checks/output-checks.ts";

/** `POST /v1/jobs` (and its dry run, `POST /v1/jobs/validate`): a raw job, and the parts a preset job shares with it. */

export const urlInputSchema = z.object({ type: z.literal("url"), url: httpUrl }).strict();
export const assetInputSchema = z.object({ type: z.literal("asset"), assetId: uuid }).strict();
/** Another job's file output (the account's own job): this job waits until that one has completed. */
export const jobOutputInputSchema = z.object({ type: z.literal("job"), jobId: uuid, output: name }).strict();
export const jobInputSchema = z.discriminatedUnion("type", [urlInputSchema, assetInputSchema, jobOutputInputSchema]);
/** Named inputs (`{{name}}`), or `input`, a list whose placeholders are `{{input0}}`, `{{input1}}`, … */
export const namedInputs = z
  .record(name, jobInputSchema)
  .refine((m) => Object.keys(m).length <= L.MAX_INPUTS, `at most ${L.MAX_INPUTS} inputs`);
export const listedInputs = z.array(jobInputSchema).max(L.MAX_INPUTS);

/**
 * Headers a destination may ask for: what S3, GCS and Azure presigned or SAS PUTs sign or need
 * (`x-amz-*`, `x-goog-*`, `x-ms-blob-type`, the content headers), nothing that would change the request
 * itself (Host, Authorization, Content-Length, Transfer-Encoding).
 */
export const DESTINATION_HEADER_PATTERN =
  /^(content-type|content-disposition|content-encoding|content-language|cache-control|content-md5|x-amz-[a-z0-9-]+|x-goog-[a-z0-9-]+|x-ms-[a-z0-9-]+)$/;
const destinationHeaders = z
  .record(
    z
      .string()
      .regex(DESTINATION_HEADER_PATTERN, "a content header, or an x-amz-, x-goog- or x-ms- header, in lower case"),
    z
      .string()
      .max(1024)
      .regex(/^[\x20-\x7e]*$/, "visible ASCII"),
  )
  .refine((h) => Object.keys(h).length <= 16, "at most 16 headers");
/**
 * An S3 multipart upload the client started (CreateMultipartUpload) and presigned: one UploadPart URL
 * per part, in order, and the CompleteMultipartUpload URL. The runner cuts the output into parts of
 * `partSizeBytes` (the last smaller), so the URLs must cover its size.
 */
export const destinationPartsSchema = z
  .object({
    urls: z.array(httpUrl).min(1).max(L.MAX_PARTS).describe("Presigned UploadPart URLs for parts 1, 2, …, in order."),
    partSizeBytes: z
      .number()
      .int()
      .min(L.MIN_PART_BYTES)
      .max(L.MAX_PART_BYTES)
      .describe("Every part's size but the last's: 5 MiB to 5 GiB, as S3 requires."),
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
  .refine((d) => (d.url === undefined) !== (d.parts === undefined), {
    message: "give either url (one PUT) or parts (an S3 multipart upload)",
  });

/**
 * An output: one file, or a directory (HLS, image sequences) whose `fileName` is its main file and
 * may be an ffmpeg pattern (`frame_%04d.png`); every file the command writes there is stored.
 */
export const outputDeclarationSchema = z
  .object({
    fileName: z
      .string()
      .max(L.MAX_FILE_NAME_CHARS)
      .regex(
        DIRECTORY_FILE_PATTERN,
        "a plain file name: letters, digits, . _ - (and % patterns in a directory output), no slash, not starting with a dot",
      ),
    contentType: contentType.optional(),
    kind: z.enum(["file", "directory"]).optional(),
    destination: outputDestinationSchema.optional(),
    checks: outputChecksSchema
      .optional()
      .describe(
        "What a correct output is, measured before the job completes (docs/api.md, Output checks). Without it a file output gets `readable` where its format says what it holds; `{}` asks for none.",
      ),
  })
  .strict()
  .refine((o) => o.kind !== "directory" || o.checks === undefined, {
    path: ["checks"],
    message: "checks measure one file: a directory output has none",
  })
  .refine((o) => o.kind === "directory" || !o.fileName.includes("%"), {
    path: ["fileName"],
    message: '% patterns name many files: declare the output with "kind": "directory"',
  })
  .refine((o) => o.kind !== "directory" || !o.destination?.parts, {
    path: ["destination", "parts"],
    message: "a directory's files are each PUT under a URL prefix: give url",
  })
  .refine((o) => o.kind !== "directory" || !o.destination?.url || isPrefixUrl(o.destination.url), {
    path: ["destination", "url"],
    message:
      'a directory\'s destination is a URL prefix: its path ends with "/" (each file is PUT under it, with its query)',
  });

/** A URL whose path ends with "/": a directory destination, each of whose files is PUT under it. */
export function isPrefixUrl(url: string): boolean {
  return URL.canParse(url) && new URL(url).pathname.endsWith("/");
}

const ffmpegArgs = z.array(z.string().max(L.MAX_ARG_LENGTH_CHARS)).min(1).max(L.MAX_ARGS);
/** One command of a multi-step job; `binary` defaults to the job's. */
export const jobStepSchema = z.object({ binary: binary.optional(), ffmpegArgs }).strict();

/** The client's labels for a job: returned with it, in its webhooks, and a filter on the job list. */
export const METADATA_KEY_PATTERN = /^[A-Za-z0-9_.:-]+$/;
export const jobMetadataSchema = z
  .record(
    z
      .string()
      .min(1)
      .max(L.MAX_METADATA_KEY_CHARS)
      .regex(METADATA_KEY_PATTERN, "keys are letters, digits and _ . : -")
      .refine((k) => !PROTOTYPE_NAMES.has(k), PROTOTYPE_NAME_MESSAGE),
    z.string().max(L.MAX_METADATA_VALUE_CHARS),
  )
  .refine((m) => Object.keys(m).length <= L.MAX_METADATA_ENTRIES, `at most ${L.MAX_METADATA_ENTRIES} entries`);
/** Jobs (the account's own) that must complete before this one starts, when it reads none of their outputs. */
export const dependsOn = z
  .array(uuid)
  .min(1)
  .max(L.MAX_INPUTS)
  .refine((ids) => new Set(ids).size === ids.length, "each job once");
/** This job's time limit; the operator's JOB_TIMEOUT_SECONDS is the default and the most allowed. */
export const timeoutSeconds = z
  .number()
  .int()
  .min(1)
  .max(7 * 24 * 3600);

/** A split encode: the video cut into segments encoded on containers of their own, then joined. */
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
    binary: binary.default("ffmpeg"),
    inputs: namedInputs.optional(),
    input: listedInputs.optional(),
    outputs: z
      .record(name, outputDeclarationSchema)
      .refine((m) => Object.keys(m).length <= L.MAX_OUTPUTS, `at most ${L.MAX_OUTPUTS} outputs`)
      .optional(),
    ffmpegArgs: ffmpegArgs.optional(),
    steps: z.array(jobStepSchema).min(1).max(L.MAX_STEPS).optional(),
    scratch: z.record(name, fileName).optional(),
    webhookUrl: webhookUrlSchema.optional(),
    metadata: jobMetadataSchema.optional(),
    timeoutSeconds: timeoutSeconds.optional(),
    dependsOn: dependsOn.optional(),
    parallel: parallelSchema.optional(),
    onFailedCheck: onFailedCheckSchema
      .optional()
      .describe(
        '"fail" (the default): an output that misses a check fails the job, unpublished; "report": it is published, its failures listed.',
      ),
  })
  .strict();
export type CreateJobRequest = z.infer<typeof createJobSchema>;
