import type { CreateJobRequest, JobRequest } from "../../client/src/index.ts";
import { printableText } from "../../src/encoding/printable-text.ts";

/** The exit status of a command whose output missed a check (the job failed OUTPUT_CHECK_FAILED, nothing downloaded). */
export const CHECK_FAILED_EXIT_CODE = 3;

type CheckResult = { check: string; passed: boolean; message: string };

/**
 * The checks a terminal user asks of every file output (docs/api.md, Output checks), from the
 * environment, since the command line is ffmpeg's own: FFJOBS_CHECKS (the checks as JSON) and
 * FFJOBS_ON_FAILED_CHECK (`fail` or `report`). Malformed JSON is an error that says which variable.
 */
export function checksFromEnv(env: NodeJS.ProcessEnv = process.env): {
  checks?: Record<string, unknown>;
  onFailedCheck?: "fail" | "report";
} {
  let checks: Record<string, unknown> | undefined;
  if (env.FFJOBS_CHECKS) {
    try {
      checks = JSON.parse(env.FFJOBS_CHECKS) as Record<string, unknown>;
    } catch {
      throw new Error(`ffjobs: FFJOBS_CHECKS is not JSON: ${env.FFJOBS_CHECKS.slice(0, 80)}`);
    }
  }
  const mode = env.FFJOBS_ON_FAILED_CHECK;
  if (mode !== undefined && mode !== "fail" && mode !== "report")
    throw new Error(`ffjobs: FFJOBS_ON_FAILED_CHECK is "fail" or "report", not "${mode}"`);
  return { ...(checks ? { checks } : {}), ...(mode ? { onFailedCheck: mode } : {}) };
}

/** A job body with those checks on each of its file outputs (the service validates them). */
export function withChecks(body: CreateJobRequest, asked: ReturnType<typeof checksFromEnv>): JobRequest {
  if (!asked.checks && !asked.onFailedCheck) return body;
  const outputs = Object.fromEntries(
    Object.entries(body.outputs ?? {}).map(([name, o]) => [
      name,
      asked.checks && (o as { kind?: string }).kind !== "directory" ? { ...o, checks: asked.checks } : o,
    ]),
  );
  return { ...body, outputs, ...(asked.onFailedCheck ? { onFailedCheck: asked.onFailedCheck } : {}) } as JobRequest;
}

/** The failed checks in one line: `out.mp4: durationSeconds (lasts 1 s; wanted 3 ± 0.1 s), fullDecode (…)`; null if none. */
export function failedChecksLine(checks: Record<string, CheckResult[]> | undefined, nameOf = (o: string) => o) {
  const parts = Object.entries(checks ?? {}).flatMap(([output, results]) => {
    const failed = results.filter((r) => !r.passed);
    return failed.length ? [`${nameOf(output)}: ${failed.map((r) => `${r.check} (${r.message})`).join(", ")}`] : [];
  });
  // Printed to a terminal: a file's text in a message (ffmpeg quotes metadata) must not drive it.
  return parts.length ? printableText(parts.join("; ")) : null;
}
