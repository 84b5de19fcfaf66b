import { createJobManager } from "./job-manager.ts";
import { createRunnerServer } from "./server.ts";
import { readSettings } from "./settings.ts";
import { sandboxWorks } from "./sandbox.ts";
import { removeLeftoverJobFolders } from "./job-folder.ts";

const configured = readSettings(process.env);
const probe = configured.sandbox === "on" ? sandboxWorks(configured.bwrapPath) : { ok: false, reason: null };
const settings = { ...configured, sandboxProblem: configured.sandbox === "on" && !probe.ok ? probe.reason : null };
if (configured.sandbox === "off") {
  console.error("WARNING: RUNNER_SANDBOX=off: ffmpeg runs WITHOUT the sandbox (no namespace isolation). Only for trusted hosts.");
} else if (settings.sandboxProblem) {
  console.error(`ERROR: the sandbox (bubblewrap) cannot start: ${settings.sandboxProblem}`);
  console.error("ERROR: refusing every job (SANDBOX_UNAVAILABLE). Fix the host, or set RUNNER_SANDBOX=off explicitly.");
}
const leftovers = await removeLeftoverJobFolders(settings.workDir);
if (leftovers.length) console.error(`removed ${leftovers.length} job folder(s) a previous runner left in ${settings.workDir}`);
const manager = createJobManager(settings);
const server = createRunnerServer(manager, { concurrency: settings.concurrency, sandbox: settings.sandbox === "off" ? "off" : settings.sandboxProblem ? "unavailable" : "on" }, settings);
server.listen(settings.port, settings.host, () => {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : settings.port;
  // The dev launcher and test setup read this line to learn the port.
  console.log(`ffjobs runner listening on http://${settings.host}:${port} (concurrency ${settings.concurrency}, sandbox ${settings.sandbox})`);
});
const stop = () => server.close(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
