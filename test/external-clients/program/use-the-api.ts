// A user's program, written against the client openapi-typescript generates from the served document
// (./schema.d.ts, written beside this file by test/e2e/generated-client.test.ts) and openapi-fetch.
// Type-checked with `tsc --strict`, then run: what it prints is what the API gave back.
import createClient from "openapi-fetch";
import type { paths } from "./schema.d.ts";

const [baseUrl, apiKey, inputUrl] = process.argv.slice(2);
const api = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${apiKey}` } });

const created = await api.POST("/v1/jobs", {
  params: { header: { Prefer: "wait=30", "Idempotency-Key": `generated-${Date.now()}` } },
  body: {
    binary: "ffprobe",
    inputs: { clip: { type: "url", url: inputUrl } },
    ffmpegArgs: ["-show_format", "{{clip}}"],
    metadata: { client: "openapi-fetch" },
  },
});
if (!created.data) throw new Error(`create: ${JSON.stringify(created.error)}`);
const id = created.data.id;

const job = await api.GET("/v1/jobs/{id}", { params: { path: { id }, query: { wait: 30 } } });
// A metadata filter, serialized the way the document says (deepObject: metadata[client]=…).
const listed = await api.GET("/v1/jobs", { params: { query: { metadata: { client: "openapi-fetch" }, limit: 5 } } });
const result = await api.GET("/v1/jobs/{id}/result", { params: { path: { id } } });
// A documented conflict: the error body is typed, `status` included.
const conflict = await api.POST("/v1/jobs/{id}/cancel", { params: { path: { id } } });
// `binary` left out, as most requests do (ffmpeg is the default): the generated type must allow that.
const dryRun = await api.POST("/v1/jobs/validate", {
  params: { query: { probe: true } },
  body: { inputs: { clip: { type: "url", url: inputUrl } }, ffmpegArgs: ["-i", "{{clip}}", "-f", "null", "-"] },
});
const malformed = await api.GET("/v1/files/{id}", { params: { path: { id: "not-a-uuid" } } });

console.log(
  JSON.stringify({
    created: { status: created.response.status, jobStatus: created.data.status },
    job: {
      status: job.data?.status,
      runtimeSeconds: job.data?.runtimeSeconds,
      metadata: job.data?.metadata,
      errorCode: job.data?.errorCode ?? null,
      errorMessage: job.data?.errorMessage ?? null,
    },
    listedIds: listed.data?.data.map((j) => j.id) ?? null,
    resultExitCode: result.data?.exitCode ?? null,
    conflict: { httpStatus: conflict.response.status, code: conflict.error?.code, status: conflict.error?.status },
    dryRun: { valid: dryRun.data?.valid, probed: dryRun.data?.inputs ? Object.keys(dryRun.data.inputs) : null },
    malformed: { httpStatus: malformed.response.status, path: malformed.error?.details?.[0]?.path },
  }),
);
