import { Hono } from "hono";
import type { AppEnv } from "../app-env.ts";
import { loadConfig } from "../../config.ts";
import * as L from "../../jobs/limits.ts";
import { ALLOWED_FILTERS, FILE_OPTIONS, MAX_SOURCE_SECONDS, SOURCE_DURATION_OPTIONS } from "../../jobs/policy/filter-tables.ts";
import * as T from "../../jobs/policy/option-tables.ts";

export const policyRoutes = new Hono<AppEnv>();

/** The argument policy and limits, from the same tables that enforce them. */
policyRoutes.get("/", (c) => {
  const config = loadConfig(c.env);
  return c.json({
    placeholders: "{{name}} is a whole argument (the value of -i, or an output position) or a file option inside a filter graph",
    options: {
      ffmpeg: { flags: T.FFMPEG_FLAGS, withValue: T.FFMPEG_VALUE_OPTIONS },
      ffprobe: { flags: T.FFPROBE_FLAGS, withValue: T.FFPROBE_VALUE_OPTIONS },
      refused: T.REFUSED_OPTIONS,
      other: "any option not listed is refused",
    },
    formats: { allowed: T.ALLOWED_FORMATS, inputDemuxers: T.INPUT_FORMAT_WHITELIST },
    filters: {
      allowed: ALLOWED_FILTERS,
      fileOptions: FILE_OPTIONS,
      sources: { durationOptions: SOURCE_DURATION_OPTIONS, maxSeconds: MAX_SOURCE_SECONDS },
      other: "every filter not listed is refused",
    },
    injected: {
      beforeEachInput: ["-protocol_whitelist", "file", "-format_whitelist", "<inputDemuxers>", "-max_pixels", String(T.MAX_PIXELS)],
      beforeEachOutput: ["-fs", "<maxOutputBytes>"],
      global: ["-hide_banner", "-nostdin", "-y", "-nostats", "-progress", "pipe:3"],
    },
    limits: {
      requestBodyBytes: L.MAX_REQUEST_BODY_BYTES,
      args: L.MAX_ARGS,
      argLengthChars: L.MAX_ARG_LENGTH_CHARS,
      inputsPerJob: L.MAX_INPUTS,
      outputsPerJob: L.MAX_OUTPUTS,
      streamLoopMax: T.MAX_STREAM_LOOP,
      maxPixels: T.MAX_PIXELS,
      jobTimeoutSeconds: config.jobTimeoutMs / 1000,
      maxActiveJobsPerAccount: config.maxActiveJobsPerAccount,
      requestsPerMinutePerKey: config.rateLimitPerMinute,
      readRequestsPerMinutePerKey: config.readRateLimitPerMinute,
      runner: "input and output sizes, memory, CPU and disk: see docs/security.md (RUNNER_* settings)",
    },
  });
});
