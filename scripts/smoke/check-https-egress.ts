// HTTPS from the runner: Cloudflare's sidecar intercepts it with its own CA, which the runner must trust
// (container/src/trust.ts), and it must still end at the Worker's egress handler.
import type { PlatformReport } from "../../src/runner/platform-report.ts";
import { expected, notApplicable, notExpected, type Finding } from "./finding.ts";

const CHECK = "HTTPS from the runner";

export function checkHttpsEgress(report: PlatformReport): Finding {
  const https = report.connections.find((c) => c.via === "runner-client" && c.url.startsWith("https:"));
  if (!https)
    return notExpected(
      CHECK,
      "the report has no HTTPS attempt",
      "update the runner image (npm run deploy) so it answers the whole report",
    );
  if (https.outcome === "not-applicable")
    return notApplicable(
      CHECK,
      `${https.url} was not tried: no sidecar intercepts HTTPS here (egress ${report.egress})`,
    );
  if (https.outcome === "worker-refused")
    return expected(
      CHECK,
      `POST ${https.url} through the runner's client came back as the Worker's egress refusal: the interception CA is trusted`,
    );
  if (https.outcome === "answered") {
    return notExpected(
      CHECK,
      `POST ${https.url}: ${https.detail}`,
      "HTTPS leaves the container without the Worker: do not let untrusted accounts run jobs; check interceptHttps and enableInternet in src/runner/ffmpeg-container.ts",
    );
  }
  if (https.outcome === "runner-refused") {
    return notExpected(
      CHECK,
      `POST ${https.url}: ${https.detail}`,
      "the runner refused the DNS answer before connecting: see the container DNS finding above",
    );
  }
  return notExpected(
    CHECK,
    `POST ${https.url}: ${https.detail}`,
    "https URL inputs and destinations will fail: the runner does not trust the platform's interception CA or cannot reach it (container/src/trust.ts, RUNNER_EXTRA_CA_FILE); see the container's logs",
  );
}
