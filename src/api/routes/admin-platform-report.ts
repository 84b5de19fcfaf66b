import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env.ts";
import { ApiError } from "../api-error.ts";
import { operation, serveOperations } from "../operation.ts";
import { errors, json, jsonBody, runnerUnavailable } from "../openapi-responses.ts";
import { loadConfig } from "../../config.ts";
import { createServices } from "../../services.ts";
import { NOTIFY_HOST, notifyUrlFor } from "../../runner/runner-notify.ts";
import { FILES_HOST } from "../../runner/runner-files.ts";
import { RunnerBusy } from "../../runner/runner-client.ts";
import {
  platformReportRequestSchema,
  runnerPlatformReportSchema,
  type PlatformReport,
} from "../../runner/platform-report.ts";

/**
 * One report at a time in the whole deployment: each holds a container (a fresh one with per-job
 * placement, else a slot of the warm pool that jobs wait for) for up to a cold start and the report's
 * own bound; an operator's script in a loop, or a leaked operator key, took one per call (60 at once
 * all ran). The lease outlives the longest report, so one whose request died frees itself.
 */
export const PLATFORM_REPORT_LEASE_MS = 150_000;
const PLATFORM_REPORT_SLOTS = "platform-report";

/**
 * `POST /v1/admin/platform-report` (operator only, src/api/operator-only.ts): asks a runner of its own
 * what it sees of the platform (src/runner/platform-report.ts; `npm run smoke` judges the answer). The
 * runner's egress lets through only the report's own notification, so every other request it makes
 * must come back as the Worker's refusal. The runner's answer is parsed with the same schema the API
 * documents: nothing it says reaches the client unchecked.
 */
const getPlatformReport = operation(
  createRoute({
    method: "post",
    path: "/",
    operationId: "getPlatformReport",
    summary:
      "Ask a runner of its own what it sees of the platform: its DNS answers, the sandbox it chose, whether a request no job scopes comes back as the Worker's egress refusal, and whether its notification reaches the Worker (an operator account's key; `npm run smoke` judges it)",
    request: { body: jsonBody(platformReportRequestSchema) },
    responses: {
      200: json("PlatformReport", "What the runner saw"),
      ...errors({ 400: ["INVALID_REQUEST"], 403: ["FORBIDDEN"], 413: ["PAYLOAD_TOO_LARGE"] }),
      ...runnerUnavailable,
    },
  }),
  async (c) => {
    const { publicHost } = c.req.valid("json");
    const config = loadConfig(c.env);
    const reportId = crypto.randomUUID();
    const slots = c.env.RATE_LIMITER.get(c.env.RATE_LIMITER.idFromName(PLATFORM_REPORT_SLOTS));
    const slot = await slots.acquire(1, PLATFORM_REPORT_LEASE_MS, reportId);
    if (!slot.taken) {
      throw new ApiError(
        "RATE_LIMITED",
        "A platform report is already running (one at a time: each holds a container); retry when it ends",
        {
          headers: { "Retry-After": String(slot.retryAfterSeconds) },
        },
      );
    }
    const checkedAt = new Date();
    let answer: unknown;
    try {
      answer = await createServices(c.env).runner.platformReport({
        reportId,
        publicHost,
        internalHosts: [NOTIFY_HOST, FILES_HOST],
        notifyUrl: notifyUrlFor(config, reportId),
      });
    } catch (err) {
      console.error("platform report: no runner answered", err);
      const why = err instanceof RunnerBusy ? "every runner is busy" : "no runner could be reached";
      throw new ApiError("RUNNER_UNAVAILABLE", `No platform report: ${why}; try again shortly`, {
        headers: { "Retry-After": "5" },
      });
    } finally {
      await slots.release(reportId);
    }
    const parsed = runnerPlatformReportSchema.safeParse(answer);
    if (!parsed.success) {
      console.error("platform report: the runner's answer does not match the schema", parsed.error.issues.slice(0, 5));
      throw new ApiError("INTERNAL", "The runner's platform report was malformed (see the Worker's logs)");
    }
    const report: PlatformReport = {
      ...parsed.data,
      runnerMode: config.runnerMode,
      publicHost,
      checkedAt: checkedAt.toISOString(),
      durationMs: Date.now() - checkedAt.getTime(),
    };
    return c.json(report);
  },
);

export const platformReportRoutes = new OpenAPIHono<AppEnv>();
serveOperations(platformReportRoutes, getPlatformReport);
