import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env.ts";
import { operation, serveOperations } from "../operation.ts";
import { errors, json } from "../openapi-responses.ts";
import { loadConfig } from "../../config.ts";
import * as L from "../../jobs/request/limits.ts";
import {
  ALLOWED_FILTERS,
  FILE_OPTIONS,
  MAX_SOURCE_SECONDS,
  SOURCE_DURATION_OPTIONS,
} from "../../jobs/policy/filter-tables.ts";
import * as T from "../../jobs/policy/option-tables.ts";
import { ALLOWED_BITSTREAM_FILTERS } from "../../jobs/policy/bitstream-filters.ts";
import { FLAG_OPTIONS } from "../../jobs/policy/flag-options.ts";

/** The argument policy and limits, from the same tables that enforce them. */
const getPolicy = operation(
  createRoute({
    method: "get",
    path: "/",
    operationId: "getPolicy",
    summary: "The argument policy and limits (allowed/refused options, formats, filters, injected options)",
    responses: { 200: json("FreeForm", "The policy"), ...errors() },
  }),
  (c) => {
    const config = loadConfig(c.env);
    return c.json({
      placeholders: {
        name: "{{name}} is a whole argument (the value of -i, or an output position) or a file option inside a filter graph",
        directoryFile:
          "{{name/file}} is a file inside directory output `name` (an output position, -hls_segment_filename, or -i in a later step)",
        scratch:
          "scratch files (multi-step jobs) are read and written like inputs and outputs, never stored; -passlogfile takes only a scratch placeholder",
      },
      steps: {
        max: L.MAX_STEPS,
        workspace:
          "the steps run in order in one folder; a step reads the inputs, scratch files and the outputs earlier steps wrote; the working directory (two-pass logs) is kept across steps",
      },
      directoryOutputs: {
        maxFiles: config.maxDirectoryFiles,
        formats:
          "any muxer writing into the output's folder: image sequences (image2 patterns like frame_%04d.png), HLS and segments (-f hls, -f segment: only into a directory output)",
        manyFileFormats: T.DIRECTORY_FORMATS,
        hlsFlags: T.ALLOWED_HLS_FLAGS,
        fileInDirectoryOptions: ["hls_segment_filename", "segment_list"],
        plainNameOptions: ["master_pl_name", "hls_fmp4_init_filename"],
      },
      options: {
        ffmpeg: { flags: T.FFMPEG_FLAGS, withValue: T.FFMPEG_VALUE_OPTIONS },
        ffprobe: { flags: T.FFPROBE_FLAGS, withValue: T.FFPROBE_VALUE_OPTIONS },
        refused: T.REFUSED_OPTIONS,
        bitstreamFilters: ALLOWED_BITSTREAM_FILTERS,
        flagValues: FLAG_OPTIONS,
        statsPeriodMaxSeconds: T.MAX_STATS_PERIOD_SECONDS,
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
        beforeEachInput: [
          "-protocol_whitelist",
          "file",
          "-format_whitelist",
          "<inputDemuxers>",
          "-max_pixels",
          String(T.MAX_PIXELS),
        ],
        beforeEachStreamedInput:
          "the same with -protocol_whitelist http,tcp -recv_buffer_size 131072: the input is read by range through the sandbox's relay (docs/security.md section 5)",
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
  },
);

export const policyRoutes = new OpenAPIHono<AppEnv>();
serveOperations(policyRoutes, getPolicy);
