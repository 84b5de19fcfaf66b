// Before any finding is read from a platform report, the report must be about what was asked and agree
// with itself. The checks pick entries by kind (the first raw-socket attempt, every DNS lookup): a report
// with no lookups was "not applicable", one with a refused attempt listed before an answered one was
// "expected", and a loopback answer labelled public passed (found by an attack pass). The deployment under
// test is not trusted yet; a report that does not hold together is itself the finding, and none of its
// parts is judged.
import { isPublicAddress, parseIPv4, parseIPv6 } from "../../src/net/address-policy.ts";
import { DEFAULT_PUBLIC_PROBE_HOST, FILES_HOST, NOTIFY_HOST } from "../../src/net/public-host-name.ts";
import type { PlatformReport } from "../../src/runner/platform-report.ts";
import { notExpected, type Finding } from "./finding.ts";

const CHECK = "platform report";
/** The names the Worker asks every runner to look up (src/api/routes/admin-platform-report.ts). */
const INTERNAL_NAMES = [NOTIFY_HOST, FILES_HOST];
const SIDECAR_PLACEHOLDERS = ["11.0.0.1", "fd00::1"];

/** Why the report cannot be judged, or null when it can. */
export function reportIncoherence(
  report: PlatformReport,
  askedHost: string = DEFAULT_PUBLIC_PROBE_HOST,
): string | null {
  const host = report.publicHost;
  if (host !== askedHost) return `it is about ${JSON.stringify(host)}, not the ${askedHost} asked for`;
  const names = report.dns.map((l) => `${l.role}:${l.name}`).sort();
  const wanted = [`public:${host}`, ...INTERNAL_NAMES.map((n) => `internal:${n}`)].sort();
  if (names.join() !== wanted.join())
    return `its lookups are ${names.join(", ") || "none"}, not one each of ${wanted.join(", ")}`;
  const attempts = report.connections.map((c) => `${c.via} ${c.url}`).sort();
  const tried = [
    `raw-socket http://${host}/`,
    `runner-client http://${host}/`,
    `runner-client https://${host}/`,
  ].sort();
  if (attempts.join() !== tried.join())
    return `its connection attempts are ${attempts.join(", ") || "none"}, not one each of ${tried.join(", ")}`;
  // Containers run behind the sidecar (FfmpegContainer sets RUNNER_EGRESS=cloudflare); a runner that
  // connects by itself looks nothing up and tries nothing (container/src/platform-report.ts).
  if (report.runnerMode === "container" && report.egress !== "cloudflare")
    return `the Worker runs jobs in containers, yet the runner says its egress is ${report.egress}`;
  const outcomes = [...report.dns, ...report.connections].map((x) => x.outcome);
  if (report.egress === "cloudflare" && outcomes.includes("not-applicable"))
    return "a runner behind the sidecar calls a lookup or an attempt not applicable";
  if (report.egress === "direct" && outcomes.some((o) => o !== "not-applicable"))
    return "a runner that connects by itself reports lookups or attempts it never makes";
  for (const { address, family, kind } of report.dns.flatMap((l) => l.addresses)) {
    const v4 = parseIPv4(address) !== null;
    // What the runner cannot read as an address (a scoped fe80::1%eth0) it counts as bypassing the sidecar (sidecar-bypass.ts).
    if (!v4 && parseIPv6(address) === null) {
      if (kind === "bypasses-sidecar") continue;
      return `${JSON.stringify(address)} is labelled ${kind}, but it is not an address the runner can read`;
    }
    if (family !== (v4 ? 4 : 6)) return `${address} is labelled IPv${family}`;
    if (kind === "public" && !isPublicAddress(address)) return `${address} is labelled public`;
    if (kind === "sidecar-placeholder" && !SIDECAR_PLACEHOLDERS.includes(address.toLowerCase()))
      return `${address} is labelled a sidecar placeholder`;
    if (isLoopbackOrUnspecified(address) && kind !== "bypasses-sidecar")
      return `${address} is labelled ${kind}, but the sidecar never carries it`;
  }
  return null;
}

export function checkReportCoherence(report: PlatformReport, askedHost?: string): Finding | null {
  const why = reportIncoherence(report, askedHost);
  return why === null
    ? null
    : notExpected(
        CHECK,
        `the report does not hold together (${why}), so none of it was judged`,
        "run the smoke test of the same version as the deployed service; if it persists, something between you and the Worker changes its answers",
      );
}

function isLoopbackOrUnspecified(address: string): boolean {
  const v4 = parseIPv4(address);
  if (v4 !== null) return v4 >> 24n === 127n || v4 === 0n;
  const v6 = parseIPv6(address);
  return v6 === 0n || v6 === 1n || (v6 !== null && v6 >> 32n === 0xffffn && (v6 & 0xffffffffn) >> 24n === 127n);
}
