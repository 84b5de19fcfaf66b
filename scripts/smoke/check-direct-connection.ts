// A request from the container that no job scopes must come back as the Worker's egress refusal: behind
// Cloudflare's sidecar every connection reaches the Worker's outbound handler. Anything else answering
// means traffic leaves without the Worker, where nothing checks what a job reaches.
import type { PlatformReport } from "../../src/runner/platform-report.ts";
import { expected, notApplicable, notExpected, type Finding } from "./finding.ts";

const CHECK = "direct connection from the container";

export function checkDirectConnection(report: PlatformReport): Finding {
  const raw = report.connections.find((c) => c.via === "raw-socket");
  if (!raw)
    return notExpected(
      CHECK,
      "the report has no direct connection attempt",
      "update the runner image (npm run deploy) so it answers the whole report",
    );
  if (raw.outcome === "not-applicable")
    return notApplicable(
      CHECK,
      `${raw.url} was not tried: the runner here connects by itself (egress ${report.egress}), with no sidecar to check`,
    );
  if (raw.outcome === "worker-refused")
    return expected(CHECK, `GET ${raw.url} came back as the Worker's egress refusal (${raw.detail})`);
  if (raw.outcome === "answered") {
    return notExpected(
      CHECK,
      `GET ${raw.url}: ${raw.detail}`,
      "do not let untrusted accounts run jobs: the container's traffic is not confined to the Worker's egress handler; check enableInternet = false and the outbound handlers in src/runner/ffmpeg-container.ts, and report it to Cloudflare",
    );
  }
  return notExpected(
    CHECK,
    `GET ${raw.url} reached nothing (${raw.detail})`,
    "the container's connections reach neither the Worker nor anything else, so URL inputs will fail too: check the container's outbound configuration (src/runner/ffmpeg-container.ts) and the Worker's logs (npx wrangler tail)",
  );
}
