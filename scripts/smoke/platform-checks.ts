// The smoke test's platform checks: facts a first deploy must confirm because production does not
// promise them and the local stack cannot show them. Each check is a function of its own; this runs
// them in order, prints each finding as it comes, and never lets one check's surprise hide the others.
import type { Asset, FfjobsClient } from "../../client/src/index.ts";
import type { PlatformReport } from "../../src/runner/platform-report.ts";
import { apiCaller } from "./api-call.ts";
import { checkCopySource } from "./check-copy-source.ts";
import { checkDestination } from "./check-destination.ts";
import { checkDirectConnection } from "./check-direct-connection.ts";
import { checkDns } from "./check-dns.ts";
import { checkHlsOutput } from "./check-hls.ts";
import { checkHttpsEgress } from "./check-https-egress.ts";
import { checkMultipartUpload } from "./check-multipart.ts";
import { checkReportCoherence } from "./check-report-coherence.ts";
import { checkNotification } from "./check-notification.ts";
import { checkSandbox } from "./check-sandbox.ts";
import { untilReady, type Patience } from "./cold-start.ts";
import { fetchPlatformReport } from "./fetch-platform-report.ts";
import { formatFinding, notExpected, type Finding } from "./finding.ts";
import type { RunJob } from "./smoke-job.ts";
import { readWav } from "./wav.ts";

export type PlatformCheckDeps = {
  fetch: typeof fetch;
  client: FfjobsClient;
  runJob: RunJob;
  patience: Patience;
  startedAt: number;
};

/** What the report's checks read of it, in the order they print. */
export const REPORT_CHECKS: ((r: PlatformReport) => Finding)[] = [
  checkSandbox,
  checkDns,
  checkDirectConnection,
  checkHttpsEgress,
  checkNotification,
];

export async function runPlatformChecks(
  o: { url: string; apiKey: string; publicHost?: string },
  d: PlatformCheckDeps,
  uploaded: { asset: Asset; wav: Uint8Array },
): Promise<Finding[]> {
  const findings: Finding[] = [];
  const note = (f: Finding) => {
    findings.push(f);
    for (const line of formatFinding(f)) d.patience.log(`  ${line}`);
  };
  const api = apiCaller(o.url, o.apiKey, d.fetch);
  const report = await untilReady("platform report", () => fetchPlatformReport(o, d.fetch), d.startedAt, d.patience);
  if ("verdict" in report) note(report);
  else {
    d.patience.log(
      `  (runner: RUNNER_MODE ${report.runnerMode}, egress ${report.egress}; report in ${report.durationMs} ms)`,
    );
    const incoherent = checkReportCoherence(report, o.publicHost);
    if (incoherent) note(incoherent);
    else for (const check of REPORT_CHECKS) note(check(report));
  }
  const samples = readWav(uploaded.wav).data;
  const checks: [string, () => Promise<Finding>][] = [
    ["HLS directory output", () => checkHlsOutput({ runJob: d.runJob, fetch: d.fetch }, uploaded.asset)],
    [
      "output sent to a destination",
      () => checkDestination({ client: d.client, api, runJob: d.runJob }, uploaded.asset, samples),
    ],
    [
      "R2 refuses x-amz-copy-source on an upload URL",
      () => checkCopySource({ client: d.client, fetch: d.fetch }, uploaded.asset),
    ],
    ["multipart upload completed", () => checkMultipartUpload({ client: d.client, api, fetch: d.fetch })],
  ];
  for (const [check, run] of checks) {
    note(
      await run().catch((err: Error) =>
        notExpected(
          check,
          `the check itself failed: ${err.message}`,
          "see the Worker's logs (npx wrangler tail) and run npm run smoke again",
        ),
      ),
    );
  }
  return findings;
}
