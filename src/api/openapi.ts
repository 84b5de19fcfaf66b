import type { z } from "zod";
import { listJobsQuerySchema, getJobQuerySchema } from "./schemas/jobs.ts";
import { listFilesQuerySchema } from "./schemas/files.ts";
import { listDeliveriesQuerySchema } from "./schemas/webhooks.ts";
import { metricsQuerySchema } from "./schemas/admin.ts";
import { IDEMPOTENCY_KEY_PATTERN } from "./idempotency.ts";
import { API_ERRORS, type ApiErrorCode } from "./error-codes.ts";
import { componentSchemas, jsonSchema, ref, type SchemaName } from "./openapi-components.ts";
import { MAX_METADATA_ENTRIES } from "../jobs/request/limits.ts";

type Param = { name: string; in: "path" | "query" | "header"; required?: boolean; schema: Record<string, unknown>; description?: string; style?: "deepObject"; explode?: boolean };

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: "Invalid request (`INVALID_REQUEST`: `details` says where)",
  401: "Missing or invalid API key (`UNAUTHORIZED`)",
  403: "The key's account may not do this (`FORBIDDEN`)",
  404: "No such resource for this account (`NOT_FOUND`)",
  409: "Conflict with the resource's state",
  413: "Body over 1 MiB (`PAYLOAD_TOO_LARGE`)",
  429: "Too many requests for this key (`RATE_LIMITED`; see `Retry-After`)",
  500: "Internal error (`INTERNAL`)",
};

const errorResponse = (status: number, codes: ApiErrorCode[] = []) => ({
  description: codes.length ? `${ERROR_DESCRIPTIONS[status].split(" (")[0]}: ${codes.join(", ")}` : ERROR_DESCRIPTIONS[status],
  content: { "application/json": { schema: ref("Error") } },
  ...(status === 429 ? { headers: { "Retry-After": { schema: { type: "integer" }, description: "Seconds until a request may succeed" } } } : {}),
});

const body = (name: SchemaName, description: string, extra: Record<string, unknown> = {}) => ({ description, content: { "application/json": { schema: ref(name) } }, ...extra });

const queryParams = (s: z.ZodType): Param[] =>
  Object.entries((jsonSchema(s, "input").properties ?? {}) as Record<string, Record<string, unknown>>).map(([name, p]) => ({ name, in: "query", schema: p }));
const idParam: Param = { name: "id", in: "path", required: true, schema: { type: "string", format: "uuid" } };
const idempotencyKey: Param = {
  name: "Idempotency-Key", in: "header", required: false, schema: { type: "string", pattern: IDEMPOTENCY_KEY_PATTERN.source },
  description: "Retries with the same key and body get the first response again (24 h)",
};

/**
 * One operation: its id, summary, parameters, request body and success response, plus the error
 * responses every authenticated call can get (401, 429, 500) and the ones it names.
 */
function op(o: {
  id: string;
  summary: string;
  params?: Param[];
  request?: SchemaName | { oneOf: SchemaName[] };
  responses: Record<number, unknown>;
  errors?: Partial<Record<400 | 403 | 404 | 409 | 413, ApiErrorCode[]>>;
  public?: boolean;
}) {
  const request = o.request && {
    required: true,
    content: { "application/json": { schema: typeof o.request === "string" ? ref(o.request) : { oneOf: o.request.oneOf.map(ref) } } },
  };
  // Every operation on an id answers a malformed one with a 400 (INVALID_REQUEST, at path.id).
  const named = o.params?.includes(idParam) && !o.errors?.[400] ? { ...o.errors, 400: ["INVALID_REQUEST" as const] } : o.errors;
  const errors = Object.fromEntries(Object.entries(named ?? {}).map(([status, codes]) => [status, errorResponse(Number(status), codes)]));
  const auth = o.public ? { security: [] } : {};
  const standard = o.public ? {} : { 401: errorResponse(401), 429: errorResponse(429), 500: errorResponse(500) };
  return {
    operationId: o.id,
    summary: o.summary,
    ...auth,
    ...(o.params?.length ? { parameters: o.params } : {}),
    ...(request ? { requestBody: request } : {}),
    responses: { ...o.responses, ...errors, ...standard },
  };
}

/** The OpenAPI document, generated from the same zod schemas that validate requests. */
export function buildOpenApiDocument(serverUrl: string) {
  return {
    openapi: "3.0.3",
    info: {
      title: "ffjobs",
      version: "1.0.0",
      description: `Asynchronous FFmpeg/FFprobe jobs. Error codes: ${Object.keys(API_ERRORS).join(", ")}. Full contract: docs/api.md.`,
      license: { name: "Proprietary", url: `${serverUrl}/docs#license` },
    },
    servers: [{ url: serverUrl }],
    security: [{ bearer: [] }],
    components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } }, schemas: componentSchemas() },
    paths: {
      "/v1/jobs": {
        post: op({
          id: "createJob",
          summary: "Create a job (with `Prefer: wait=N`, answer with the finished job if it ends within N ≤ 60 seconds)",
          params: [{ name: "Prefer", in: "header", schema: { type: "string", example: "wait=30" } }, idempotencyKey],
          request: { oneOf: ["CreateJobRequest", "PresetJobRequest"] },
          responses: {
            200: body("Job", "Finished within the preferred wait (Preference-Applied: wait=N)"),
            202: body("JobAccepted", "Accepted", { headers: { Location: { schema: { type: "string" }, description: "The job's URL" } } }),
          },
          errors: { 400: ["INVALID_REQUEST"], 409: ["IDEMPOTENCY_KEY_REUSED", "IDEMPOTENCY_KEY_IN_USE"], 413: ["PAYLOAD_TOO_LARGE"] },
        }),
        get: op({
          id: "listJobs",
          summary: "List jobs, newest first, as summaries (GET /v1/jobs/{id} has the whole job); `metadata[key]=value` filters by metadata",
          params: [...queryParams(listJobsQuerySchema), { name: "metadata", in: "query", style: "deepObject", explode: true, schema: { type: "object", additionalProperties: { type: "string" } }, description: `metadata[key]=value, at most ${MAX_METADATA_ENTRIES}; all must match` }],
          responses: { 200: body("JobList", "A page of job summaries") },
          errors: { 400: ["INVALID_REQUEST"] },
        }),
      },
      "/v1/jobs/validate": {
        post: op({
          id: "validateJob",
          summary: "Dry run: what creating this job would do, creating nothing (`?probe=true` also probes the inputs and estimates the credits)",
          params: [{ name: "probe", in: "query", schema: { type: "boolean" }, description: "true: also probe the inputs (1 and 0 are read as true and false; anything else is a 400)" }],
          request: { oneOf: ["CreateJobRequest", "PresetJobRequest"] },
          responses: { 200: body("DryRunResult", "The verdict: `valid: false` with the errors creation would give, or the command lines (and probes)") },
          errors: { 400: ["INVALID_REQUEST"], 413: ["PAYLOAD_TOO_LARGE"] },
        }),
      },
      "/v1/jobs/{id}": {
        delete: op({
          id: "deleteJob", summary: "Delete a finished job and its stored outputs (204)", params: [idParam],
          responses: { 204: { description: "Deleted" } }, errors: { 404: ["NOT_FOUND"], 409: ["JOB_NOT_FINISHED"] },
        }),
        get: op({
          id: "getJob",
          summary: "Get a job (with ?wait=N, as soon as it is finished or after N ≤ 60 seconds)",
          params: [idParam, ...queryParams(getJobQuerySchema)],
          responses: { 200: body("Job", "The job") },
          errors: { 400: ["INVALID_REQUEST"], 404: ["NOT_FOUND"] },
        }),
      },
      "/v1/jobs/{id}/events": {
        get: op({
          id: "streamJobEvents",
          summary: "Server-Sent Events: the job, then `progress` and `status` events (each with the full job) until it is terminal; resumable with Last-Event-ID",
          params: [idParam, { name: "Last-Event-ID", in: "header", schema: { type: "string" } }],
          responses: { 200: { description: "An event stream", content: { "text/event-stream": { schema: { type: "string" } } } } },
          errors: { 404: ["NOT_FOUND"] },
        }),
      },
      "/v1/jobs/{id}/result": {
        get: op({ id: "getJobResult", summary: "A finished job's result", params: [idParam], responses: { 200: body("JobResult", "The result") }, errors: { 404: ["NOT_FOUND"], 409: ["JOB_NOT_FINISHED"] } }),
      },
      "/v1/jobs/{id}/tasks": {
        get: op({
          id: "listJobTasks",
          summary: "A split job's tasks (its segments, its audio, the join; or why it ran whole), with their state and run time; empty for other jobs and before the plan",
          params: [idParam], responses: { 200: body("JobTaskList", "The tasks, in plan order") }, errors: { 404: ["NOT_FOUND"] },
        }),
      },
      "/v1/jobs/{id}/command": {
        get: op({
          id: "getJobCommand",
          summary: "A shell script that runs the job again with a local ffmpeg: inputs fetched with curl, each step's resolved command, outputs named as in the job",
          params: [idParam],
          responses: { 200: { description: "The script (POSIX sh)", content: { "text/x-shellscript": { schema: { type: "string" } } } } },
          errors: { 404: ["NOT_FOUND"] },
        }),
      },
      "/v1/jobs/{id}/cancel": {
        post: op({ id: "cancelJob", summary: "Cancel a queued or running job", params: [idParam], responses: { 200: body("Job", "The canceled job") }, errors: { 404: ["NOT_FOUND"], 409: ["JOB_ALREADY_FINISHED"] } }),
      },
      "/v1/files": {
        post: op({
          id: "createFile",
          summary: "Create an upload slot",
          params: [idempotencyKey],
          request: "CreateFileRequest",
          responses: { 201: body("Asset", "The asset with its upload URL") },
          errors: { 400: ["INVALID_REQUEST"], 409: ["IDEMPOTENCY_KEY_REUSED", "IDEMPOTENCY_KEY_IN_USE"], 413: ["PAYLOAD_TOO_LARGE"] },
        }),
        get: op({
          id: "listFiles", summary: "The account's files (uploads and job outputs), newest first", params: queryParams(listFilesQuerySchema),
          responses: { 200: body("AssetList", "A page of files") }, errors: { 400: ["INVALID_REQUEST"] },
        }),
      },
      "/v1/files/{id}": {
        get: op({ id: "getFile", summary: "Get an asset", params: [idParam], responses: { 200: body("Asset", "The asset") }, errors: { 404: ["NOT_FOUND"] } }),
        delete: op({
          id: "deleteFile", summary: "Delete a file's bytes and record now (an output also leaves its job) (204)", params: [idParam],
          responses: { 204: { description: "Deleted" } }, errors: { 404: ["NOT_FOUND"], 409: ["FILE_IN_USE"] },
        }),
      },
      "/v1/files/{id}/parts": {
        post: op({
          id: "getUploadPartUrls", summary: "Presigned PUT URLs for parts of a multipart upload (again for a part that failed)", params: [idParam], request: "PartUrlsRequest",
          responses: { 200: body("PartUrls", "The parts' URLs") }, errors: { 400: ["INVALID_REQUEST"], 404: ["NOT_FOUND"], 409: ["UPLOAD_NOT_IN_PROGRESS"] },
        }),
      },
      "/v1/files/{id}/complete": {
        post: op({
          id: "completeUpload", summary: "Complete a multipart upload from its parts' ETags; the file is then ready", params: [idParam], request: "CompleteUploadRequest",
          responses: { 200: body("Asset", "The uploaded file") }, errors: { 400: ["INVALID_REQUEST"], 404: ["NOT_FOUND"], 409: ["UPLOAD_NOT_IN_PROGRESS"] },
        }),
      },
      "/v1/policy": {
        get: op({ id: "getPolicy", summary: "The argument policy and limits (allowed/refused options, formats, filters, injected options)", responses: { 200: body("FreeForm", "The policy") } }),
      },
      "/v1/account": {
        get: op({ id: "getAccount", summary: "The key's account: credit balance, credits used, jobs by status", responses: { 200: body("Account", "The account") } }),
      },
      "/v1/admin/metrics": {
        get: op({
          id: "getMetrics",
          summary: "Operator metrics for a period: jobs by status and error code, queue wait and run time percentiles, container starts, bytes, credits, webhook outcomes, per hour or day and per account (an operator account's key)",
          params: queryParams(metricsQuerySchema),
          responses: { 200: body("MetricsReport", "The period's figures") },
          errors: { 400: ["INVALID_REQUEST"], 403: ["FORBIDDEN"], 404: ["NOT_FOUND"] },
        }),
      },
      "/v1/admin/platform-report": {
        post: op({
          id: "getPlatformReport",
          summary: "Ask a runner of its own what it sees of the platform: its DNS answers, the sandbox it chose, whether a request no job scopes comes back as the Worker's egress refusal, and whether its notification reaches the Worker (an operator account's key; `npm run smoke` judges it)",
          request: "PlatformReportRequest",
          responses: {
            200: body("PlatformReport", "What the runner saw"),
            503: { description: "No runner could be asked (`RUNNER_UNAVAILABLE`)", content: { "application/json": { schema: ref("Error") } } },
          },
          errors: { 400: ["INVALID_REQUEST"], 403: ["FORBIDDEN"], 413: ["PAYLOAD_TOO_LARGE"] },
        }),
      },
      "/v1/capabilities": {
        get: op({
          id: "getCapabilities",
          summary: "The runner's ffmpeg/ffprobe versions, encoders, decoders, muxers, demuxers and filters, each marked `allowed` by the policy",
          responses: { 200: body("FreeForm", "The capabilities"), 503: { description: "No runner could be asked (`RUNNER_UNAVAILABLE`)", content: { "application/json": { schema: ref("Error") } } } },
        }),
      },
      "/v1/presets": {
        get: op({ id: "listPresets", summary: "The presets: name, description, binary, inputs, params (JSON Schema) and outputs", responses: { 200: body("FreeForm", "The presets") } }),
      },
      "/v1/presets/{name}": {
        get: op({
          id: "getPreset", summary: "One preset", params: [{ name: "name", in: "path", required: true, schema: { type: "string" } }],
          responses: { 200: body("FreeForm", "The preset") }, errors: { 404: ["NOT_FOUND"] },
        }),
      },
      "/v1/webhooks/secret": {
        get: op({ id: "getWebhookSecret", summary: "The account's webhook signing secret", responses: { 200: body("WebhookSecret", "The secret") } }),
      },
      "/v1/webhooks/secret/rotate": {
        post: op({ id: "rotateWebhookSecret", summary: "Rotate the signing secret (the old one keeps signing for 24 h)", responses: { 200: body("WebhookSecret", "The new secret") } }),
      },
      "/v1/webhooks/test": {
        post: op({
          id: "testWebhook", summary: "Send a signed webhook.test now", request: "WebhookTestRequest",
          responses: { 200: body("WebhookTestResult", "What the receiver answered") }, errors: { 400: ["INVALID_REQUEST"], 413: ["PAYLOAD_TOO_LARGE"] },
        }),
      },
      "/v1/webhooks/deliveries": {
        get: op({
          id: "listDeliveries", summary: "The delivery log, newest first, with every attempt", params: queryParams(listDeliveriesQuerySchema),
          responses: { 200: body("DeliveryList", "A page of deliveries") }, errors: { 400: ["INVALID_REQUEST"] },
        }),
      },
      "/v1/webhooks/deliveries/{id}/redeliver": {
        post: op({ id: "redeliverWebhook", summary: "Send a delivery again (same event id)", params: [idParam], responses: { 202: body("Delivery", "The reopened delivery") }, errors: { 404: ["NOT_FOUND"] } }),
      },
      "/outputs/{jobId}/{output}/{token}/{file}": {
        get: op({
          id: "getDirectoryFile",
          summary: "A file of a directory output (HLS, image sequence), as linked from the job: the token authorizes the whole folder, so playlists' relative URLs work",
          public: true,
          params: [...["jobId", "output", "token", "file"].map((name): Param => ({ name, in: "path", required: true, schema: { type: "string" } })), { name: "Range", in: "header", schema: { type: "string" } }],
          responses: {
            200: { description: "The file" }, 206: { description: "A byte range of it" },
            403: { description: "The token is invalid or expired" }, 404: { description: "No such file" },
          },
        }),
      },
    },
  };
}
