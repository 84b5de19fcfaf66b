import { boundedJson } from "../store/stored-bytes.ts";
import type { CheckResult } from "./output-checks.ts";

/**
 * An ending's check results as the job's row keeps them (its share, src/jobs/store/row-budget.ts): all
 * of them where they fit; else the failed ones only (what a client needs to act on), their messages
 * and measures kept; else none (the error message still names the failures).
 */
export function storedChecks(checks: Record<string, CheckResult[]> | null, maxBytes: number): string | null {
  if (!checks) return null;
  const all = boundedJson(checks, maxBytes);
  if (all !== null) return all;
  const failed = Object.fromEntries(
    Object.entries(checks).map(([name, results]) => [name, results.filter((r) => !r.passed)]),
  );
  return boundedJson(failed, maxBytes);
}

/** The check results a job's row holds, by output name ({} for none). */
export function checksOfRow(row: { checks_json?: string | null }): Record<string, CheckResult[]> {
  return row.checks_json ? (JSON.parse(row.checks_json) as Record<string, CheckResult[]>) : {};
}
