import type {
  Account,
  ApiErrorBody,
  Asset,
  AssetList,
  CreateFileRequest,
  CreateJobRequest,
  Delivery,
  DeliveryList,
  DryRunResult,
  Job,
  JobAccepted,
  JobList,
  JobResult,
  MetricsReport,
  PresetJobRequest,
  CreateTemplateRequest,
  Template,
  TemplateJobRequest,
  TemplateList,
  UpdateTemplateRequest,
  WebhookSecret,
  WebhookTestResult,
} from "./api-types.ts";
import { readEvents } from "./events.ts";
import { MULTIPART_THRESHOLD_BYTES, partsOfStream, uploadInParts, type ReadPart } from "./multipart-upload.ts";

export type * from "./api-types.ts";
export { verifyReceipt, verifyWebhook, WebhookVerificationError } from "./webhooks.ts";
export { readEvents, type ServerEvent } from "./events.ts";
export { MULTIPART_THRESHOLD_BYTES } from "./multipart-upload.ts";

export type ClientOptions = { baseUrl: string; apiKey: string; fetch?: typeof fetch };
export type JobRequest = CreateJobRequest | PresetJobRequest | TemplateJobRequest;
export type JobStatus = Job["status"];

/** An error answer from the service: its HTTP status, code and message, and `details` for a 400. */
export class FfjobsError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: ApiErrorBody["details"];
  readonly body: ApiErrorBody & Record<string, unknown>;
  constructor(status: number, body: ApiErrorBody & Record<string, unknown>) {
    super(body.error);
    this.status = status;
    this.code = body.code;
    this.details = body.details;
    this.body = body;
  }
}

const TERMINAL: readonly JobStatus[] = ["completed", "failed", "canceled", "rejected"];
export const isFinished = (job: Pick<Job, "status">) => TERMINAL.includes(job.status);

/** The longest the service holds a waiting request (`?wait=`, `Prefer: wait=`). */
const MAX_WAIT_SECONDS = 60;

/**
 * A typed client for every endpoint. Its types are generated from the service's OpenAPI document
 * (`npm run client:types`), which is itself generated from the schemas that validate requests.
 */
export function createClient(options: ClientOptions) {
  const base = options.baseUrl.replace(/\/+$/, "");
  const doFetch = options.fetch ?? fetch;

  async function request(
    method: string,
    path: string,
    init: { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = { Authorization: `Bearer ${options.apiKey}`, ...init.headers };
    if (init.body !== undefined) headers["Content-Type"] = "application/json";
    const res = await doFetch(`${base}${path}`, {
      method,
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: init.signal,
    });
    if (!res.ok) {
      const text = await res.text();
      let body: ApiErrorBody & Record<string, unknown>;
      try {
        body = JSON.parse(text);
      } catch {
        body = { error: text || res.statusText, code: `HTTP_${res.status}` };
      }
      throw new FfjobsError(res.status, body);
    }
    return res;
  }
  const json = async <T>(method: string, path: string, init?: Parameters<typeof request>[2]): Promise<T> =>
    (await (await request(method, path, init)).json()) as T;
  const query = (q: Record<string, string | number | undefined>) => {
    const params = new URLSearchParams(
      Object.entries(q).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]])),
    );
    return params.size ? `?${params}` : "";
  };

  const client = {
    /** Creates a job (202). With `waitSeconds`, answers the finished job if it ends in time (else the 202 body). */
    async createJob(
      body: JobRequest,
      opts: { idempotencyKey?: string; waitSeconds?: number } = {},
    ): Promise<JobAccepted | Job> {
      const headers: Record<string, string> = {};
      if (opts.idempotencyKey) headers["Idempotency-Key"] = opts.idempotencyKey;
      if (opts.waitSeconds) headers.Prefer = `wait=${Math.min(opts.waitSeconds, MAX_WAIT_SECONDS)}`;
      return json("POST", "/v1/jobs", { body, headers });
    },
    validateJob: (body: JobRequest, opts: { probe?: boolean } = {}) =>
      json<DryRunResult>("POST", `/v1/jobs/validate${opts.probe ? "?probe=true" : ""}`, { body }),
    getJob: (id: string, opts: { waitSeconds?: number; signal?: AbortSignal } = {}) =>
      json<Job>(
        "GET",
        `/v1/jobs/${id}${query({ wait: opts.waitSeconds && Math.min(opts.waitSeconds, MAX_WAIT_SECONDS) })}`,
        { signal: opts.signal },
      ),
    listJobs: (q: { limit?: number; cursor?: string; status?: JobStatus; metadata?: Record<string, string> } = {}) => {
      const filters = Object.fromEntries(Object.entries(q.metadata ?? {}).map(([k, v]) => [`metadata[${k}]`, v]));
      return json<JobList>(
        "GET",
        `/v1/jobs${query({ limit: q.limit, cursor: q.cursor, status: q.status, ...filters })}`,
      );
    },
    getResult: (id: string) => json<JobResult>("GET", `/v1/jobs/${id}/result`),
    /** A shell script that runs the job again with a local ffmpeg (inputs fetched with curl). */
    getJobCommand: async (id: string) => (await request("GET", `/v1/jobs/${id}/command`)).text(),
    cancelJob: (id: string) => json<Job>("POST", `/v1/jobs/${id}/cancel`),
    deleteJob: async (id: string) => void (await request("DELETE", `/v1/jobs/${id}`)),
    /** The job's Server-Sent Events (`status`, `progress`), each with the full job, until it is finished. */
    async *events(
      id: string,
      opts: { lastEventId?: string; signal?: AbortSignal } = {},
    ): AsyncGenerator<{ event: string; id: string | null; job: Job }> {
      const res = await request("GET", `/v1/jobs/${id}/events`, {
        headers: opts.lastEventId ? { "Last-Event-ID": opts.lastEventId } : {},
        signal: opts.signal,
      });
      for await (const e of readEvents(res.body!)) yield { event: e.event, id: e.id, job: JSON.parse(e.data) as Job };
    },
    /** Waits for the job to finish with long polls (each held up to 60 s by the service), not busy polling. */
    async waitForJob(id: string, opts: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<Job> {
      const deadline = Date.now() + (opts.timeoutMs ?? Number.POSITIVE_INFINITY);
      for (;;) {
        const left = Math.ceil((deadline - Date.now()) / 1000);
        const job = await client.getJob(id, {
          waitSeconds: Math.max(1, Math.min(MAX_WAIT_SECONDS, left)),
          signal: opts.signal,
        });
        if (isFinished(job)) return job;
        if (Date.now() >= deadline) throw new Error(`job ${id} did not finish in time (still ${job.status})`);
      }
    },
    createFile: (body: CreateFileRequest, opts: { idempotencyKey?: string } = {}) =>
      json<Asset & { upload: NonNullable<Asset["upload"]> }>("POST", "/v1/files", {
        body,
        headers: opts.idempotencyKey ? { "Idempotency-Key": opts.idempotencyKey } : {},
      }),
    /**
     * Uploads a file (a path, in Node; a Blob; or a stream with its size) and returns the asset, ready
     * to use as `{ type: "asset", assetId }`. `onProgress` is told the bytes sent so far.
     */
    async uploadFile(
      source: string | Blob | { stream: ReadableStream<Uint8Array>; size: number },
      opts: {
        fileName?: string;
        contentType?: string;
        onProgress?: (sent: number, total: number) => void;
        multipartThresholdBytes?: number;
        partSizeBytes?: number;
      } = {},
    ): Promise<Asset> {
      const { body, size, name, readPart } = await uploadSource(source);
      const fileName = opts.fileName ?? name;
      if (!fileName) throw new Error("uploadFile needs a fileName for a Blob or a stream");
      const multipart = size > (opts.multipartThresholdBytes ?? MULTIPART_THRESHOLD_BYTES);
      const slot = await client.createFile({
        fileName,
        ...(opts.contentType ? { contentType: opts.contentType } : {}),
        size,
        ...(multipart ? { multipart: true, ...(opts.partSizeBytes ? { partSizeBytes: opts.partSizeBytes } : {}) } : {}),
      });
      if (slot.upload.method === "multipart") {
        // A path or a Blob is read part by part (a part can be sent again); a stream once, in order.
        if (readPart) await body.cancel();
        return uploadInParts(
          { id: slot.id, upload: slot.upload },
          size,
          readPart ?? partsOfStream(body),
          {
            partUrls: (id, partNumbers) => json("POST", `/v1/files/${id}/parts`, { body: { partNumbers } }),
            complete: (id, parts) => json("POST", `/v1/files/${id}/complete`, { body: { parts } }),
            put: (url, part) => doFetch(url, { method: "PUT", body: part as BodyInit }),
          },
          opts.onProgress,
        );
      }
      const counted = opts.onProgress ? countBytes(body, size, opts.onProgress) : body;
      const put = await doFetch(slot.upload.url, {
        method: "PUT",
        headers: { ...slot.upload.headers, "Content-Length": String(size) },
        body: counted,
        duplex: "half",
      } as RequestInit);
      if (!put.ok)
        throw new FfjobsError(put.status, {
          error: `storage refused the upload (HTTP ${put.status})`,
          code: "UPLOAD_FAILED",
        });
      return client.getFile(slot.id);
    },
    getFile: (id: string) => json<Asset>("GET", `/v1/files/${id}`),
    listFiles: (q: { limit?: number; cursor?: string; origin?: "upload" | "output" } = {}) =>
      json<AssetList>("GET", `/v1/files${query(q)}`),
    deleteFile: async (id: string) => void (await request("DELETE", `/v1/files/${id}`)),
    listPresets: () => json<{ data: Record<string, unknown>[] }>("GET", "/v1/presets"),
    getPreset: (name: string) => json<Record<string, unknown>>("GET", `/v1/presets/${encodeURIComponent(name)}`),
    getPolicy: () => json<Record<string, unknown>>("GET", "/v1/policy"),
    /** Job templates: a job body kept by name with declared variables; `createJob({ template, vars })` runs one. */
    createTemplate: (body: CreateTemplateRequest) => json<Template>("POST", "/v1/templates", { body }),
    /** A new version of a template (jobs made from earlier ones keep what they ran). */
    updateTemplate: (name: string, body: UpdateTemplateRequest) =>
      json<Template>("PUT", `/v1/templates/${encodeURIComponent(name)}`, { body }),
    getTemplate: (name: string, opts: { version?: number } = {}) =>
      json<Template>("GET", `/v1/templates/${encodeURIComponent(name)}${query({ version: opts.version })}`),
    listTemplates: (q: { limit?: number; cursor?: string } = {}) =>
      json<TemplateList>("GET", `/v1/templates${query(q)}`),
    deleteTemplate: async (name: string) => void (await request("DELETE", `/v1/templates/${encodeURIComponent(name)}`)),
    getAccount: () => json<Account>("GET", "/v1/account"),
    /** The service's figures for a period (an operator account's key; others get FORBIDDEN). */
    getMetrics: (q: { since?: string; until?: string; account?: string } = {}) =>
      json<MetricsReport>("GET", `/v1/admin/metrics${query(q)}`),
    getCapabilities: () => json<Record<string, unknown>>("GET", "/v1/capabilities"),
    getWebhookSecret: () => json<WebhookSecret>("GET", "/v1/webhooks/secret"),
    rotateWebhookSecret: () => json<WebhookSecret>("POST", "/v1/webhooks/secret/rotate"),
    testWebhook: (url: string) => json<WebhookTestResult>("POST", "/v1/webhooks/test", { body: { url } }),
    listDeliveries: (q: { limit?: number; cursor?: string; jobId?: string } = {}) =>
      json<DeliveryList>("GET", `/v1/webhooks/deliveries${query(q)}`),
    redeliver: (id: string) => json<Delivery>("POST", `/v1/webhooks/deliveries/${id}/redeliver`),
  };
  return client;
}

export type FfjobsClient = ReturnType<typeof createClient>;

/** An upload's bytes: as one stream, and (a path or a Blob) by part, for an upload in parts. */
async function uploadSource(
  source: string | Blob | { stream: ReadableStream<Uint8Array>; size: number },
): Promise<{ body: ReadableStream<Uint8Array>; size: number; name?: string; readPart?: ReadPart }> {
  if (typeof source === "string") {
    // Node only: a path on disk, streamed, not read into memory (a part at a time for an upload in parts).
    const { stat, open } = await import("node:fs/promises");
    const { createReadStream } = await import("node:fs");
    const { Readable } = await import("node:stream");
    const { basename } = await import("node:path");
    const { size } = await stat(source);
    const readPart: ReadPart = async (start, end) => {
      const file = await open(source, "r");
      try {
        const bytes = new Uint8Array(end - start);
        const { bytesRead } = await file.read(bytes, 0, bytes.length, start);
        if (bytesRead !== bytes.length) throw new Error(`${source} changed while it was uploaded`);
        return bytes;
      } finally {
        await file.close();
      }
    };
    const body = () => Readable.toWeb(createReadStream(source)) as unknown as ReadableStream<Uint8Array>;
    return { body: lazyStream(body), size, name: basename(source), readPart };
  }
  if (source instanceof Blob)
    return {
      body: source.stream(),
      size: source.size,
      name: source instanceof File ? source.name : undefined,
      readPart: async (start, end) => source.slice(start, end),
    };
  return { body: source.stream, size: source.size, name: undefined };
}

/** A stream opened only when first read (an upload in parts never opens the whole-file one). */
function lazyStream(open: () => ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  let reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      reader ??= open().getReader();
      const { value, done } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel() {
      await reader?.cancel();
    },
  });
}

function countBytes(
  body: ReadableStream<Uint8Array>,
  total: number,
  onProgress: (sent: number, total: number) => void,
): ReadableStream<Uint8Array> {
  let sent = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        sent += chunk.byteLength;
        onProgress(sent, total);
        controller.enqueue(chunk);
      },
    }),
  );
}
