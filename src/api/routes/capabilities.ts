import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env.ts";
import { ApiError } from "../api-error.ts";
import { operation, serveOperations } from "../operation.ts";
import { errors, json, runnerUnavailable } from "../openapi-responses.ts";
import { createServices } from "../../services.ts";
import { markCapabilities } from "../../jobs/policy/capability-marks.ts";
import type { RunnerCapabilities } from "../../runner/runner-protocol.ts";

/** A runner's binaries change only with a deploy: ask one at most every 10 minutes per isolate. */
const CACHE_MS = 10 * 60_000;
let cache: { at: number; value: RunnerCapabilities } | null = null;

/**
 * `GET /v1/capabilities`: the runner's ffmpeg and ffprobe versions, encoders, decoders, muxers,
 * demuxers and filters, read from the binaries, each marked with whether the policy lets a job use it.
 */
const getCapabilities = operation(
  createRoute({
    method: "get",
    path: "/",
    operationId: "getCapabilities",
    summary:
      "The runner's ffmpeg/ffprobe versions, encoders, decoders, muxers, demuxers and filters, each marked `allowed` by the policy",
    responses: { 200: json("FreeForm", "The capabilities"), ...errors(), ...runnerUnavailable },
  }),
  async (c) => {
    if (!cache || Date.now() - cache.at > CACHE_MS) {
      try {
        cache = { at: Date.now(), value: await createServices(c.env).runner.capabilities() };
      } catch (err) {
        console.error("capabilities: no runner answered", err);
        throw new ApiError(
          "RUNNER_UNAVAILABLE",
          "No runner could be asked what its ffmpeg supports; try again shortly",
          { headers: { "Retry-After": "5" } },
        );
      }
    }
    return c.json(markCapabilities(cache.value));
  },
);

export const capabilityRoutes = new OpenAPIHono<AppEnv>();
serveOperations(capabilityRoutes, getCapabilities);
