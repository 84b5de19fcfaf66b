import { OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import { MAX_REQUEST_BODY_BYTES } from "../jobs/request/limits.ts";
import { ApiError, errorResponse } from "./api-error.ts";
import type { AppEnv } from "./app-env.ts";
import { requireApiKey } from "./auth-middleware.ts";
import { buildOpenApiDocument } from "./openapi.ts";
import { fileRoutes } from "./routes/files.ts";
import { jobRoutes } from "./routes/jobs.ts";
import { webhookRoutes } from "./routes/webhooks.ts";
import { policyRoutes } from "./routes/policy.ts";
import { presetRoutes } from "./routes/presets.ts";
import { templateRoutes } from "./routes/templates.ts";
import { capabilityRoutes } from "./routes/capabilities.ts";
import { accountRoutes } from "./routes/account.ts";
import { adminRoutes } from "./routes/admin-metrics.ts";
import { platformReportRoutes } from "./routes/admin-platform-report.ts";
import { operatorOnly } from "./operator-only.ts";
import { LOCAL_NOTIFY_PATH, jobIdOfNotifyPath, pokeCoordinator } from "../runner/runner-notify.ts";
import { loadConfig } from "../config.ts";
import { acceptRunnerUpload, LOCAL_FILES_PATH } from "../runner/runner-files.ts";
import { RUNNER_SECRET_HEADER, secretMatches } from "../runner/runner-secret.ts";
import { isLocalS3, LOCAL_DOWNLOADS_PATH, serveLocalDownload } from "../storage/local-downloads.ts";
import { DIRECTORY_DOWNLOAD_PREFIX } from "../storage/directory-files.ts";
import { directoryDownloadRoutes } from "./routes/directory-downloads.ts";
import { docsPage } from "./routes/docs-page.ts";

/**
 * The Worker's HTTP app. The API's routes are declared with their OpenAPI descriptions (src/api/operation.ts),
 * which each router's registry collects and `app.route` merges here under the mount path, so the
 * document lists the paths in the order they are mounted (generated clients follow it:
 * test/unit/openapi-document.test.ts holds it); the routes below that are not the API's
 * (the runner's, a local stack's downloads) are plain Hono routes and stay out of it.
 */
export const app = new OpenAPIHono<AppEnv>();

app.get("/openapi.json", (c) => c.json(buildOpenApiDocument(app, new URL(c.req.url).origin)));
app.route("/docs", docsPage);

// A local runner's notifications (src/runner/runner-notify.ts); containers use the egress handler.
// Both take only the runner's own calls: they carry the secret it shares with the Worker.
app.post(`${LOCAL_NOTIFY_PATH}:id`, (c) => {
  const jobId = jobIdOfNotifyPath(new URL(c.req.url).pathname);
  if (!fromLocalRunner(loadConfig(c.env), c.req.header(RUNNER_SECRET_HEADER)) || !jobId)
    throw new ApiError("NOT_FOUND", "No such endpoint");
  return pokeCoordinator(c.env, jobId);
});

// A local runner's uploads: directory-output files, and the parts of file outputs (src/runner/runner-files.ts).
app.on(["PUT", "POST"], [`${LOCAL_FILES_PATH}/jobs/*`, `${LOCAL_FILES_PATH}/parts/*`], (c) => {
  const config = loadConfig(c.env);
  if (!fromLocalRunner(config, c.req.header(RUNNER_SECRET_HEADER))) throw new ApiError("NOT_FOUND", "No such endpoint");
  return acceptRunnerUpload(c.env, config, c.req.raw);
});

function fromLocalRunner(config: ReturnType<typeof loadConfig>, presented: string | undefined): boolean {
  return (
    config.runnerMode === "local" &&
    config.runnerControlSecret !== undefined &&
    secretMatches(presented, config.runnerControlSecret)
  );
}

// A local stack's downloads (src/storage/local-downloads.ts); production's are R2's own URLs.
app.get(`${LOCAL_DOWNLOADS_PATH}*`, (c) => {
  const { storage } = loadConfig(c.env);
  if (!isLocalS3(storage.s3Endpoint)) throw new ApiError("NOT_FOUND", "No such endpoint");
  return serveLocalDownload(c.env.BUCKET, storage, c.req.raw);
});

const limitBody = bodyLimit({
  maxSize: MAX_REQUEST_BODY_BYTES,
  onError: () => {
    throw new ApiError("PAYLOAD_TOO_LARGE", `The request body is over ${MAX_REQUEST_BODY_BYTES} bytes`);
  },
});
app.use("/v1/*", limitBody);
app.use("/v1/*", requireApiKey);
// The MCP server (src/mcp/): the same keys and limits as the API, whose routes its tools call in-process.
app.use("/mcp", limitBody);
app.use("/mcp", requireApiKey);
// Loaded on its first request: the MCP SDK and the tools' schemas would cost every cold start ~0.1 s of CPU.
app.all("/mcp", async (c) => {
  const { mcpHandler } = await import("../mcp/mcp-route.ts");
  return mcpHandler((request, ctx) => app.fetch(request, ctx.env, ctx.executionCtx))(c);
});
app.route("/v1/jobs", jobRoutes);
app.route("/v1/files", fileRoutes);
app.route("/v1/policy", policyRoutes);
app.route("/v1/account", accountRoutes);
app.use("/v1/admin/*", operatorOnly);
app.route("/v1/admin", adminRoutes);
app.route("/v1/admin/platform-report", platformReportRoutes);
app.route("/v1/capabilities", capabilityRoutes);
app.route("/v1/presets", presetRoutes);
app.route("/v1/templates", templateRoutes);
app.route("/v1/webhooks", webhookRoutes);
// A directory output's files: public (the link's token is their authorization), outside /v1.
app.route(DIRECTORY_DOWNLOAD_PREFIX.slice(0, -1), directoryDownloadRoutes);

app.notFound(() => {
  throw new ApiError("NOT_FOUND", "No such endpoint");
});

app.onError((err, c) => {
  if (err instanceof ApiError) return errorResponse(c, err);
  if (err instanceof HTTPException && err.status === 400) {
    return errorResponse(
      c,
      new ApiError("INVALID_REQUEST", "The body is not valid JSON", {
        details: [{ path: [], message: err.message, code: "invalid_json" }],
      }),
    );
  }
  console.error("unhandled error", err);
  return errorResponse(c, new ApiError("INTERNAL", "Internal error"));
});
