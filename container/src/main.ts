import { createJobManager } from "./job-manager.ts";
import { createRunnerServer } from "./server.ts";
import { readSettings } from "./settings.ts";
import { chooseIsolation } from "./isolation.ts";
import { removeLeftoverJobFolders } from "./job-folder.ts";
import { inputStreaming } from "./job-inputs.ts";

/** Cloudflare sends SIGKILL 15 minutes after SIGTERM: exit before it, whatever is left. */
const DRAIN_MAX_MS = 14 * 60_000;
const DRAIN_POLL_MS = 500;

const configured = readSettings(process.env);
const choice = chooseIsolation(configured);
const streaming = inputStreaming(configured, choice.kind);
const settings = {
  ...configured,
  isolation: choice.kind,
  isolationDescription: choice.description,
  sandboxProblem: choice.problem,
  streamInputs: streaming.on,
};
console.error(`inputs: ${streaming.description}`);
if (choice.kind === "none") {
  console.error(
    "WARNING: RUNNER_SANDBOX=off: ffmpeg runs WITHOUT the sandbox (no namespace isolation). Only for trusted hosts.",
  );
} else if (choice.kind === null) {
  console.error(`ERROR: no sandbox can start on this host: ${choice.problem}`);
  console.error("ERROR: refusing every job (SANDBOX_UNAVAILABLE). Fix the host, or set RUNNER_SANDBOX=off explicitly.");
} else {
  console.error(`sandbox: ${choice.description}${choice.fallback ? ` (not bubblewrap: ${choice.fallback})` : ""}`);
}
const leftovers = await removeLeftoverJobFolders(settings.workDir);
if (leftovers.length)
  console.error(`removed ${leftovers.length} job folder(s) a previous runner left in ${settings.workDir}`);
const manager = createJobManager(settings);
const sandbox = choice.kind === "none" ? "off" : (choice.kind ?? "unavailable");
const server = createRunnerServer(
  manager,
  {
    concurrency: settings.concurrency,
    sandbox,
    sandboxDescription: choice.description,
    sandboxFallback: choice.fallback,
  },
  settings,
);
server.listen(settings.port, settings.host, () => {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : settings.port;
  // The dev launcher and test setup read this line to learn the port.
  console.log(
    `ffjobs runner listening on http://${settings.host}:${port} (concurrency ${settings.concurrency}, sandbox ${sandbox})`,
  );
});
const stop = () => server.close(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", settings.drainOnSigterm ? () => void drainThenStop() : stop);

/**
 * A rollout stops the container with SIGTERM, then SIGKILL after 15 minutes: take no new job, let
 * the ones held finish and their reports be collected (a job lost here is retried uncharged, but
 * one that finishes is not run twice), then exit.
 */
async function drainThenStop(): Promise<void> {
  manager.drain();
  const deadline = Date.now() + DRAIN_MAX_MS;
  console.error(`SIGTERM: draining ${manager.heldCount()} job(s) before exiting`);
  while (manager.heldCount() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, DRAIN_POLL_MS));
  stop();
}
