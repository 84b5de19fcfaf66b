import type { z } from "zod";
import { jsonSchema } from "./openapi-json-schema.ts";
import * as common from "./schemas/common.ts";
import * as requests from "./schemas/job-request.ts";
import * as presets from "./schemas/presets.ts";
import * as jobs from "./schemas/jobs.ts";
import * as files from "./schemas/files.ts";
import * as account from "./schemas/account.ts";
import * as webhooks from "./schemas/webhooks.ts";
import * as templates from "./schemas/templates.ts";
import { metricsReportSchema } from "../metrics/metrics-report.ts";
import { platformReportRequestSchema, platformReportSchema } from "../runner/platform-report.ts";

/**
 * The request bodies the document names, by the zod schema that validates each: a route declares its
 * body's zod schema (openapi-responses.ts, `jsonBody`) and the document refers to it by this name.
 */
const REQUEST_BODIES = {
  CreateJobRequest: requests.createJobSchema,
  PresetJobRequest: presets.presetJobSchema,
  TemplateJobRequest: templates.templateJobSchema,
  CreateTemplateRequest: templates.createTemplateSchema,
  UpdateTemplateRequest: templates.updateTemplateSchema,
  CreateFileRequest: files.createFileSchema,
  PartUrlsRequest: files.partUrlsRequestSchema,
  CompleteUploadRequest: files.completeUploadSchema,
  PlatformReportRequest: platformReportRequestSchema,
  WebhookTestRequest: webhooks.webhookTestSchema,
} as const satisfies Record<string, z.ZodType>;

/** A request body as clients send it: its schema's input side, defaults in words (openapi-json-schema.ts). */
const requestBody = (name: keyof typeof REQUEST_BODIES) => jsonSchema(REQUEST_BODIES[name], "input");

/** The name the document gives a request body's zod schema; a body that has none is a mistake in its route's declaration. */
export function requestBodyName(schema: z.ZodType): SchemaName {
  const named = Object.entries(REQUEST_BODIES).find(([, s]) => s === schema);
  if (!named)
    throw new Error(
      "a route's JSON body schema has no name in the document: add it to REQUEST_BODIES (src/api/openapi-components.ts)",
    );
  return named[0] as SchemaName;
}

/**
 * The named schemas of the document (`#/components/schemas/<Name>`): a generated client gets one
 * type per name. Requests are described as clients send them, responses as they come back.
 */
export const SCHEMAS = {
  CreateJobRequest: () => ({
    ...requestBody("CreateJobRequest"),
    description: "A raw job: exactly one of `ffmpegArgs` (one command) and `steps` (several).",
    oneOf: [
      { type: "object", required: ["ffmpegArgs"], properties: { ffmpegArgs: { type: "array" } } },
      { type: "object", required: ["steps"], properties: { steps: { type: "array" } } },
    ],
    example: {
      inputs: { video: { type: "url", url: "https://media.example.org/a.mp4" } },
      outputs: { small: { fileName: "small.mp4" } },
      ffmpegArgs: ["-i", "{{video}}", "-vf", "scale=640:-2", "-c:v", "libx264", "-crf", "28", "{{small}}"],
      metadata: { customer: "acme" },
    },
  }),
  PresetJobRequest: () => ({
    ...requestBody("PresetJobRequest"),
    example: {
      mode: "preset",
      preset: "thumbnail",
      inputs: { video: { type: "url", url: "https://media.example.org/a.mp4" } },
      params: { percent: 50 },
    },
  }),
  TemplateJobRequest: () => ({
    ...requestBody("TemplateJobRequest"),
    example: { template: "web-clip", vars: { src: "https://media.example.org/a.mp4", height: 720 } },
  }),
  CreateTemplateRequest: () => ({
    ...requestBody("CreateTemplateRequest"),
    example: {
      name: "web-clip",
      variables: {
        src: { type: "url" },
        height: { type: "integer", default: 720, minimum: 144, maximum: 2160 },
      },
      job: {
        inputs: { video: { type: "url", url: "{{src}}" } },
        outputs: { small: { fileName: "small.mp4" } },
        ffmpegArgs: ["-i", "{{video}}", "-vf", "scale=-2:{{height}}", "{{small}}"],
      },
    },
  }),
  UpdateTemplateRequest: () => requestBody("UpdateTemplateRequest"),
  Template: () => jsonSchema(templates.templateSchema),
  TemplateSummary: () => jsonSchema(templates.templateSchema.omit({ job: true })),
  TemplateList: () => pageOf("TemplateSummary"),
  JobAccepted: () => jsonSchema(jobs.jobAcceptedSchema),
  Job: () => ({
    ...withOutputRefs(jsonSchema(jobs.jobSchema)),
    example: {
      id: "5b1d0c1e-8f7a-4c64-9d2b-2f0f6a3c9e11",
      binary: "ffmpeg",
      mode: "raw",
      status: "completed",
      queuedReason: null,
      dependsOn: [],
      runtimeSeconds: 3,
      creditsCharged: 3,
      attempts: 1,
      timings: { queuedMs: 15, fetchMs: 30, runMs: 2900, storeMs: 70, finishMs: 12 },
      errorCode: null,
      errorMessage: null,
      createdAt: "2026-11-23T12:00:00.000Z",
      startedAt: "2026-11-23T12:00:00.015Z",
      finishedAt: "2026-11-23T12:00:03.027Z",
      outputs: [],
      progress: null,
      ffmpegArgs: ["-i", "{{video}}", "{{small}}"],
      steps: null,
      scratch: null,
      failedStep: null,
      inputs: { video: { type: "url", url: "https://media.example.org/a.mp4" } },
      outputDeclarations: { small: { fileName: "small.mp4", contentType: "video/mp4" } },
      deliveredOutputs: [],
      preset: null,
      params: null,
      template: null,
      plannedArgs: null,
      presetReport: null,
      inputReads: { video: { bytesRead: 3423505, originBytes: 3423505, copied: false } },
      webhookUrl: null,
      metadata: { customer: "acme" },
      timeoutSeconds: 3600,
      parallel: null,
      checks: {
        small: [
          {
            check: "readable",
            passed: true,
            wanted: { streams: "at least 1" },
            measured: { format: "mov,mp4,m4a,3gp,3g2,mj2", streams: 2 },
            message: "read as mov,mp4,m4a,3gp,3g2,mj2 with 2 stream(s)",
          },
        ],
      },
      onFailedCheck: "fail",
    },
  }),
  JobSummary: () => ({
    ...jsonSchema(jobs.jobSummarySchema),
    example: {
      id: "5b1d0c1e-8f7a-4c64-9d2b-2f0f6a3c9e11",
      binary: "ffmpeg",
      mode: "raw",
      status: "completed",
      queuedReason: null,
      preset: null,
      command: "ffmpeg -i {{video}} -vf scale=640:-2 -c:v libx264 -crf 28 {{small}}",
      metadata: { customer: "acme" },
      progress: null,
      attempts: 1,
      runtimeSeconds: 3,
      creditsCharged: 3,
      timings: { queuedMs: 15, fetchMs: 30, runMs: 2900, storeMs: 70, finishMs: 12 },
      errorCode: null,
      errorMessage: null,
      failedStep: null,
      createdAt: "2026-11-23T12:00:00.000Z",
      startedAt: "2026-11-23T12:00:00.015Z",
      finishedAt: "2026-11-23T12:00:03.027Z",
    },
  }),
  JobList: () => pageOf("JobSummary"),
  JobResult: () => withOutputRefs(jsonSchema(jobs.jobResultSchema)),
  JobTaskList: () => jsonSchema(jobs.jobTaskListSchema),
  Output: () => jsonSchema(jobs.outputSchema),
  CreateFileRequest: () => ({
    ...requestBody("CreateFileRequest"),
    example: { fileName: "clip.mp4", contentType: "video/mp4" },
  }),
  Asset: () => jsonSchema(files.assetSchema),
  PartUrlsRequest: () => ({ ...requestBody("PartUrlsRequest"), example: { partNumbers: [1, 2, 3] } }),
  PartUrls: () => jsonSchema(files.partUrlsSchema),
  CompleteUploadRequest: () => ({
    ...requestBody("CompleteUploadRequest"),
    example: { parts: [{ partNumber: 1, etag: '"a54357aff0632cce46d942af68356b38"' }] },
  }),
  AssetList: () => jsonSchema(files.assetListSchema),
  Account: () => jsonSchema(account.accountSchema),
  MetricsReport: () => jsonSchema(metricsReportSchema),
  PlatformReportRequest: () => ({ ...requestBody("PlatformReportRequest"), example: { publicHost: "example.com" } }),
  PlatformReport: () => jsonSchema(platformReportSchema),
  WebhookSecret: () => jsonSchema(webhooks.webhookSecretSchema),
  WebhookTestRequest: () => ({
    ...requestBody("WebhookTestRequest"),
    example: { url: "https://hooks.example.org/ffjobs" },
  }),
  WebhookTestResult: () => jsonSchema(webhooks.webhookTestResultSchema),
  Delivery: () => jsonSchema(webhooks.deliverySchema),
  DeliveryList: () => pageOf("Delivery"),
  Error: () => ({
    ...jsonSchema(common.errorSchema),
    example: {
      error: "Invalid request: ffmpegArgs.0: drop the binary name",
      code: "INVALID_REQUEST",
      details: [{ path: ["ffmpegArgs", "0"], message: "drop the binary name", code: "custom" }],
    },
  }),
  DryRunResult: () => ({
    type: "object",
    required: ["valid"],
    properties: {
      valid: { type: "boolean" },
      error: { type: "string", description: "When not valid: what creation would answer" },
      details: { type: "array", items: { type: "object", additionalProperties: true } },
      mode: { type: "string", enum: ["raw", "preset"] },
      binary: { type: "string", enum: ["ffmpeg", "ffprobe"] },
      commands: {
        type: "array",
        items: {
          type: "object",
          properties: { binary: { type: "string" }, argv: { type: "array", items: { type: "string" } } },
        },
      },
      inputs: {
        type: "object",
        nullable: true,
        additionalProperties: { type: "object", additionalProperties: true },
        description: "With ?probe=true: each input's ffprobe summary, or why it failed",
      },
      estimate: {
        type: "object",
        nullable: true,
        properties: { seconds: { type: "integer" }, credits: { type: "integer" }, basis: { type: "string" } },
      },
      probeError: { type: "string" },
    },
  }),
  FreeForm: () => ({ type: "object", additionalProperties: true, description: "A JSON object; see docs/api.md" }),
} as const;

export type SchemaName = keyof typeof SCHEMAS;

/** A job's `outputs` as a list of the named `Output` (zod writes it out in place). */
function withOutputRefs(schema: Record<string, unknown>) {
  return {
    ...schema,
    properties: { ...(schema.properties as Record<string, unknown>), outputs: { type: "array", items: ref("Output") } },
  };
}

/** A keyset page of a named schema (`{ data, nextCursor }`): its items keep their name in generated clients. */
function pageOf(item: SchemaName) {
  return {
    type: "object",
    required: ["data", "nextCursor"],
    properties: { data: { type: "array", items: ref(item) }, nextCursor: { type: "string", nullable: true } },
  };
}

export const ref = (name: SchemaName) => ({ $ref: `#/components/schemas/${name}` });

export function componentSchemas() {
  return Object.fromEntries(Object.entries(SCHEMAS).map(([name, build]) => [name, build()]));
}
