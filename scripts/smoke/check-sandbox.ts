// Which sandbox the runner chose on this host, and why, if it fell back (container/src/isolation.ts).
import type { PlatformReport } from "../../src/runner/platform-report.ts";
import { expected, notExpected, type Finding } from "./finding.ts";

const CHECK = "job sandbox";

export function checkSandbox(report: PlatformReport): Finding {
  const s = report.sandbox;
  if (s.mode === "namespaces") return expected(CHECK, `bubblewrap starts (${s.description})`);
  if (s.mode === "uid") {
    return expected(
      CHECK,
      `the uid fallback, because bubblewrap cannot start here (${s.fallbackReason ?? "no reason given"}); each job runs as a uid of its own with seccomp, see docs/security.md`,
    );
  }
  if (s.mode === "off") {
    if (s.requested === "off")
      return expected(
        CHECK,
        "off, as configured (CONTAINER_RUNNER_SANDBOX=off): jobs run with limits only, each in its own container with no internet and no secrets",
      );
    return notExpected(
      CHECK,
      `off although ${s.requested} was asked for`,
      "check CONTAINER_RUNNER_SANDBOX in wrangler.toml and the runner's logs",
    );
  }
  return notExpected(
    CHECK,
    `no sandbox can start on this host: ${s.problem ?? "no reason given"}; every job fails SANDBOX_UNAVAILABLE`,
    "set CONTAINER_RUNNER_SANDBOX=off (each job still gets its own container with no internet and no secrets; docs/security.md) and deploy again, or report the reason to Cloudflare",
  );
}
