import type { CheckResult } from "../../src/jobs/checks/output-checks.ts";
import type { PlanReport } from "../../src/presets/recipes/recipe.ts";

/**
 * What the preset decided as it planned, with what its outputs' checks measured after the encode: a
 * loudness report's `after` is the first output's loudness check (the preset's own, unless the client
 * replaced the checks), so before and after are read side by side in the job's result.
 */
export function presetReportWithOutputs(
  report: PlanReport | null,
  outputs: { checks?: CheckResult[] }[],
): PlanReport | null {
  if (!report?.loudness) return report;
  const check = outputs.flatMap((o) => o.checks ?? []).find((c) => c.check === "loudness");
  const measured = check?.measured as { integratedLufs?: number | null; truePeakDbtp?: number | null } | undefined;
  const after = measured
    ? { integratedLufs: measured.integratedLufs ?? null, truePeakDbtp: measured.truePeakDbtp ?? null }
    : null;
  return { ...report, loudness: { ...report.loudness, after } };
}
