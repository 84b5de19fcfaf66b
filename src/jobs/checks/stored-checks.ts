import { boundedJson } from "../store/stored-bytes.ts";
import type { CheckResult } from "./output-checks.ts";

/** What stands for a detail left out where the results did not fit. */
const LEFT_OUT = "(details left out: the job's results did not fit its record)";
const CUT_MESSAGE_CHARS = 200;

/**
 * An ending's check results as the job's row keeps them (its share, src/jobs/store/row-budget.ts): all of
 * them where they fit; else, in turn, the passed ones cut to their name, the failed ones' measures left
 * out and their messages cut, and at last every result as its name and verdict, which always fits
 * (16 outputs of at most 17 checks). Every result is kept in some form: a report-only job, which has no
 * error message, still says which checks it missed.
 */
export function storedChecks(checks: Record<string, CheckResult[]> | null, maxBytes: number): string | null {
  if (!checks) return null;
  const bare = (r: CheckResult): CheckResult => ({
    check: r.check,
    passed: r.passed,
    wanted: null,
    measured: null,
    message: LEFT_OUT,
  });
  const stages: ((r: CheckResult) => CheckResult)[] = [
    (r) => r,
    (r) => (r.passed ? bare(r) : r),
    (r) => (r.passed ? bare(r) : { ...bare(r), wanted: r.wanted, message: r.message.slice(0, CUT_MESSAGE_CHARS) }),
    bare,
  ];
  for (const stage of stages) {
    const json = boundedJson(
      Object.fromEntries(Object.entries(checks).map(([name, results]) => [name, results.map(stage)])),
      maxBytes,
    );
    if (json !== null) return json;
  }
  return null;
}

/** The check results a job's row holds, by output name ({} for none). */
export function checksOfRow(row: { checks_json?: string | null }): Record<string, CheckResult[]> {
  return row.checks_json ? (JSON.parse(row.checks_json) as Record<string, CheckResult[]>) : {};
}
