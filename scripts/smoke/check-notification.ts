// A runner's notification reaches the Worker the way a job's does (a container: the made-up host its
// egress handler answers; a local runner: the Worker's route). A lost notification costs only time
// (the coordinator's own polls are the safety net), so this check only warns.
import type { PlatformReport } from "../../src/runner/platform-report.ts";
import { expected, notExpected, type Finding } from "./finding.ts";

const CHECK = "runner notification";

export function checkNotification(report: PlatformReport): Finding {
  const n = report.notification;
  if (n.outcome === "delivered")
    return expected(CHECK, `the runner's notification reached the Worker (${n.detail}, ${n.ms} ms)`);
  const why = n.outcome === "not-configured" ? n.detail : `it did not reach the Worker: ${n.detail}`;
  return notExpected(
    CHECK,
    why,
    "jobs still finish, noticed at the coordinator's next poll (RUNNER_POLL_INTERVAL_MS) instead of at once; see the Worker's logs (npx wrangler tail) for the notification's request",
    { required: false },
  );
}
