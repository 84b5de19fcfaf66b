// The container's DNS, as the platform report saw it (src/runner/platform-report.ts). Behind Cloudflare's
// sidecar the answers themselves decide nothing (the Worker checks where a request really goes), as
// long as every name resolves and no answer lies where the sidecar does not carry a connection.
import type { DnsLookupReport, PlatformReport } from "../../src/runner/platform-report.ts";
import { expected, notApplicable, notExpected, type Finding } from "./finding.ts";

const CHECK = "container DNS";

export function checkDns(report: PlatformReport): Finding {
  if (report.dns.every((l) => l.outcome === "not-applicable")) {
    return notApplicable(
      CHECK,
      `the runner connects by itself here (egress ${report.egress}), so no container DNS is in the way; a deploy's report shows it`,
    );
  }
  const failed = report.dns.filter((l) => l.outcome !== "resolved");
  if (failed.length) {
    const internal = failed.some((l) => l.role === "internal");
    return notExpected(
      CHECK,
      `${failed.map((l) => `${l.name}: ${l.detail}`).join("; ")}`,
      internal
        ? "the container cannot resolve the service's own names: runner notifications and directory outputs (HLS) will fail; check the container's outbound configuration (enableInternet = false with the jobEgress handler, src/runner/ffmpeg-container.ts) and tell Cloudflare what the report shows"
        : `the container resolves no address for ${report.publicHost}: every URL input and destination will fail; try another --public-host, then check the container's outbound configuration (src/runner/ffmpeg-container.ts)`,
    );
  }
  const bypass = report.dns.filter((l) => l.addresses.some((a) => a.kind === "bypasses-sidecar"));
  if (bypass.length) {
    return notExpected(
      CHECK,
      `${answers(bypass)}: in a range Cloudflare's sidecar does not carry to the Worker`,
      "the runner refuses these answers, so URL inputs, destinations and notifications for these names fail: the platform's DNS changed; report it with this output and see container/src/sidecar-bypass.ts",
    );
  }
  const refused = report.connections.find(
    (c) => c.via === "runner-client" && c.url.startsWith("http:") && c.outcome === "runner-refused",
  );
  if (refused) {
    return notExpected(
      CHECK,
      `${answers(report.dns)}; the runner's own client refused them (${refused.detail})`,
      "URL inputs and destinations would fail the same way: the runner judges these DNS answers differently from what the platform gives; see container/src/safe-fetch.ts and report this output",
    );
  }
  return expected(CHECK, `${answers(report.dns)} (${kinds(report.dns)}); the runner's client accepts them`);
}

function answers(lookups: readonly DnsLookupReport[]): string {
  return lookups.map((l) => `${l.name} → ${l.addresses.map((a) => a.address).join(", ") || "nothing"}`).join("; ");
}

function kinds(lookups: readonly DnsLookupReport[]): string {
  const seen = [...new Set(lookups.flatMap((l) => l.addresses.map((a) => a.kind)))];
  const words: Record<string, string> = {
    "sidecar-placeholder": "the sidecar's placeholders, as under wrangler dev",
    public: "public addresses",
    private: "private-range addresses, which the sidecar still carries to the Worker",
  };
  return seen.map((k) => words[k] ?? k).join(", ");
}
