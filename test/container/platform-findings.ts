import { checkReportCoherence } from "../../scripts/smoke/check-report-coherence.ts";
import { fetchPlatformReport } from "../../scripts/smoke/fetch-platform-report.ts";
import type { Finding } from "../../scripts/smoke/finding.ts";
import { REPORT_CHECKS } from "../../scripts/smoke/platform-checks.ts";
import type { PlatformReport } from "../../src/runner/platform-report.ts";
import type { DevStack } from "../support/dev-stack.ts";

/**
 * What `npm run smoke` makes of a runner's platform report on this stack: the report a real
 * container gives (POST /v1/admin/platform-report, the dev key is an operator's), and each finding of
 * the checks that read it. example.com is never asked for: the Worker refuses a host no job scopes
 * before it resolves anything.
 */
export async function platformFindings(stack: DevStack): Promise<{ report: PlatformReport; findings: Finding[] }> {
  const report = await fetchPlatformReport({ url: stack.baseUrl, apiKey: stack.apiKey }, fetch);
  if ("verdict" in report) throw new Error(`no platform report: ${report.detail}`);
  // As the smoke test does: a report that does not hold together is one failing finding, not five passes.
  const incoherent = checkReportCoherence(report);
  return { report, findings: incoherent ? [incoherent] : REPORT_CHECKS.map((check) => check(report)) };
}
