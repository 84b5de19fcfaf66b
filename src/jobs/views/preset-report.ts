import { z } from "zod";
import type { PlanReport } from "../../presets/recipes/recipe.ts";

const loudnessMeasureSchema = z.object({
  integratedLufs: z.number().nullable().describe("Integrated loudness, LUFS; null for silence (below −70 LUFS)."),
  truePeakDbtp: z.number(),
  rangeLu: z.number(),
  thresholdLufs: z.number(),
  targetOffsetLu: z.number(),
});

/**
 * A preset job's `presetReport` as the API shows it. Typed against the recipes' own PlanReport (the
 * one source of its shape, src/presets/recipes/), so the two cannot drift.
 */
export const presetReportSchema: z.ZodType<PlanReport> = z.object({
  loudness: z
    .object({
      mode: z.enum(["linear", "dynamic"]),
      reason: z.string(),
      before: loudnessMeasureSchema.nullable(),
      after: z.object({ integratedLufs: z.number().nullable(), truePeakDbtp: z.number().nullable() }).nullable(),
    })
    .optional(),
});
