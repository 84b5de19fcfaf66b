import { z } from "zod";
import { fileName, name } from "./common.ts";
import {
  dependsOn,
  jobMetadataSchema,
  listedInputs,
  namedInputs,
  parallelSchema,
  timeoutSeconds,
} from "./job-request.ts";
import { webhookUrlSchema } from "./webhooks.ts";
import { onFailedCheckSchema, outputChecksSchema } from "../../jobs/checks/output-checks.ts";

/** A job from a named recipe (GET /v1/presets): its parameters instead of ffmpegArgs. */
export const presetJobSchema = z
  .object({
    mode: z.literal("preset"),
    preset: z.string().min(1).max(64),
    inputs: namedInputs.optional(),
    input: listedInputs.optional(),
    params: z.record(z.string(), z.unknown()).optional(),
    outputs: z
      .record(
        name,
        z
          .object({
            fileName: fileName.optional(),
            checks: outputChecksSchema.optional().describe("Replaces the preset's own checks for this output."),
          })
          .strict(),
      )
      .optional(),
    webhookUrl: webhookUrlSchema.optional(),
    metadata: jobMetadataSchema.optional(),
    timeoutSeconds: timeoutSeconds.optional(),
    dependsOn: dependsOn.optional(),
    parallel: parallelSchema.optional(),
    onFailedCheck: onFailedCheckSchema.optional(),
  })
  .strict();
export type PresetJobRequest = z.infer<typeof presetJobSchema>;

/** `GET /v1/presets/{name}`: any name; one the catalog lacks is a 404. */
export const presetNameParamSchema = z.object({ name: z.string() });
