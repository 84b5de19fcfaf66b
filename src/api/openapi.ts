import { z } from "zod";
import * as S from "./schemas.ts";
import { API_ERRORS } from "./error-codes.ts";

const schema = (s: z.ZodType, io: "input" | "output" = "output") =>
  z.toJSONSchema(s, { io, target: "openapi-3.0", unrepresentable: "any" }) as Record<string, unknown>;

const json = (s: z.ZodType, io: "input" | "output" = "output") => ({ "application/json": { schema: schema(s, io) } });
const error = (description: string) => ({ description, content: json(S.errorSchema) });
const queryParams = (s: z.ZodType) =>
  Object.entries((schema(s, "input").properties ?? {}) as Record<string, unknown>).map(([name, p]) => ({ name, in: "query", schema: p }));
const idParam = [{ name: "id", in: "path", required: true, schema: { type: "string", format: "uuid" } }];
const idempotencyKey = { name: "Idempotency-Key", in: "header", required: false, schema: { type: "string", minLength: 1, maxLength: 255 }, description: "Retries with the same key and body get the first response again (24 h)" };
const common = { 401: error("Missing or invalid API key"), 500: error("Internal error") };

/** A raw job carries exactly one of `ffmpegArgs` (one command) and `steps` (several). */
const rawJobRequest = () => ({ ...schema(S.createJobSchema, "input"), oneOf: [{ required: ["ffmpegArgs"] }, { required: ["steps"] }] });

/** The OpenAPI document, generated from the same zod schemas that validate requests. */
export function buildOpenApiDocument(serverUrl: string) {
  return {
    openapi: "3.0.3",
    info: {
      title: "ffjobs",
      version: "1.0.0",
      description: `Asynchronous FFmpeg/FFprobe jobs. Error codes: ${Object.keys(API_ERRORS).join(", ")}.`,
    },
    servers: [{ url: serverUrl }],
    components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
    security: [{ bearer: [] }],
    paths: {
      "/v1/jobs": {
        post: {
          summary: "Create a job (with `Prefer: wait=N`, answer with the finished job if it ends within N ≤ 60 seconds)",
          parameters: [{ name: "Prefer", in: "header", schema: { type: "string", example: "wait=30" } }, idempotencyKey],
          requestBody: { required: true, content: { "application/json": { schema: { oneOf: [rawJobRequest(), schema(S.presetJobSchema, "input")] } } } },
          responses: {
            200: { description: "Finished within the preferred wait (Preference-Applied: wait=N)", content: json(S.jobSchema) },
            202: { description: "Accepted", content: json(S.jobAcceptedSchema) },
            400: error("Invalid request"), 413: error("Body too large"), ...common,
          },
        },
        get: {
          summary: "List jobs, newest first",
          parameters: queryParams(S.listJobsQuerySchema),
          responses: { 200: { description: "A page of jobs", content: json(S.jobListSchema) }, 400: error("Invalid query"), ...common },
        },
      },
      "/v1/jobs/{id}": {
        get: {
          summary: "Get a job (with ?wait=N, as soon as it is finished or after N ≤ 60 seconds)",
          parameters: [...idParam, ...queryParams(S.getJobQuerySchema)],
          responses: { 200: { description: "The job", content: json(S.jobSchema) }, 400: error("Invalid query"), 404: error("No such job"), ...common },
        },
      },
      "/v1/jobs/{id}/events": {
        get: {
          summary: "Server-Sent Events: the job, then `progress` and `status` events (each with the full job) until it is terminal; resumable with Last-Event-ID",
          parameters: [...idParam, { name: "Last-Event-ID", in: "header", schema: { type: "string" } }],
          responses: { 200: { description: "An event stream", content: { "text/event-stream": { schema: { type: "string" } } } }, 404: error("No such job"), ...common },
        },
      },
      "/v1/jobs/{id}/result": {
        get: {
          summary: "A finished job's result",
          parameters: idParam,
          responses: { 200: { description: "The result", content: json(S.jobResultSchema) }, 404: error("No such job"), 409: error("JOB_NOT_FINISHED"), ...common },
        },
      },
      "/v1/jobs/{id}/cancel": {
        post: {
          summary: "Cancel a queued or running job",
          parameters: idParam,
          responses: { 200: { description: "The canceled job", content: json(S.jobSchema) }, 404: error("No such job"), 409: error("JOB_ALREADY_FINISHED"), ...common },
        },
      },
      "/v1/files": {
        post: {
          summary: "Create an upload slot",
          parameters: [idempotencyKey],
          requestBody: { required: true, content: json(S.createFileSchema, "input") },
          responses: { 201: { description: "The asset with its upload URL", content: json(S.assetSchema) }, 400: error("Invalid request"), ...common },
        },
      },
      "/v1/policy": {
        get: {
          summary: "The argument policy and limits (allowed/refused options, formats, filters, injected options)",
          responses: { 200: { description: "The policy", content: { "application/json": { schema: { type: "object" } } } }, ...common },
        },
      },
      "/v1/webhooks/secret": {
        get: { summary: "The account's webhook signing secret", responses: { 200: { description: "The secret", content: json(S.webhookSecretSchema) }, ...common } },
      },
      "/v1/webhooks/secret/rotate": {
        post: { summary: "Rotate the signing secret (the old one keeps signing for 24 h)", responses: { 200: { description: "The new secret", content: json(S.webhookSecretSchema) }, ...common } },
      },
      "/v1/webhooks/test": {
        post: {
          summary: "Send a signed webhook.test now",
          requestBody: { required: true, content: json(S.webhookTestSchema, "input") },
          responses: { 200: { description: "What the receiver answered", content: json(S.webhookTestResultSchema) }, 400: error("Invalid request"), ...common },
        },
      },
      "/v1/webhooks/deliveries": {
        get: {
          summary: "The delivery log, newest first, with every attempt",
          parameters: queryParams(S.listDeliveriesQuerySchema),
          responses: { 200: { description: "A page of deliveries", content: json(S.deliveryListSchema) }, 400: error("Invalid query"), ...common },
        },
      },
      "/v1/webhooks/deliveries/{id}/redeliver": {
        post: { summary: "Send a delivery again (same event id)", parameters: idParam, responses: { 202: { description: "The reopened delivery", content: json(S.deliverySchema) }, 404: error("No such delivery"), ...common } },
      },
      "/v1/presets": {
        get: { summary: "The presets: name, description, binary, inputs, params (JSON Schema) and outputs", responses: { 200: { description: "The presets", content: { "application/json": { schema: { type: "object" } } } }, ...common } },
      },
      "/v1/presets/{name}": {
        get: {
          summary: "One preset",
          parameters: [{ name: "name", in: "path", required: true, schema: { type: "string" } }],
          responses: { 200: { description: "The preset", content: { "application/json": { schema: { type: "object" } } } }, 404: error("No such preset"), ...common },
        },
      },
      "/v1/files/{id}": {
        get: { summary: "Get an asset", parameters: idParam, responses: { 200: { description: "The asset", content: json(S.assetSchema) }, 404: error("No such file"), ...common } },
      },
      "/outputs/{jobId}/{output}/{token}/{file}": {
        get: {
          summary: "A file of a directory output (HLS, image sequence), as linked from the job: the token authorizes the whole folder, so playlists' relative URLs work",
          security: [],
          parameters: ["jobId", "output", "token", "file"].map((name) => ({ name, in: "path", required: true, schema: { type: "string" } }))
            .concat([{ name: "Range", in: "header", required: false, schema: { type: "string" } }] as never[]),
          responses: {
            200: { description: "The file" }, 206: { description: "A byte range of it" },
            403: { description: "The token is invalid or expired" }, 404: { description: "No such file" },
          },
        },
      },
    },
  };
}
