import { createJobManager } from "./job-manager.ts";
import { createRunnerServer } from "./server.ts";
import { readSettings } from "./settings.ts";
import { chooseIsolation } from "./isolation.ts";
import { removeLeftoverJobFolders } from "./job-folder.ts";

const configured = readSettings(process.env);
const choice = chooseIsolation(configured);
const settings = { ...configured, isolation: choice.kind, isolationDescription: choice.description, sandboxProblem: choice.problem };
if (choice.kind === "none") {
  console.error("WARNING: RUNNER_SANDBOX=off: ffmpeg runs WITHOUT the sandbox (no namespace isolation). Only for trusted hosts.");
} else if (choice.kind === null) {
  console.error(`ERROR: no sandbox can start on this host: ${choice.problem}`);
  console.error("ERROR: refusing every job (SANDBOX_UNAVAILABLE). Fix the host, or set RUNNER_SANDBOX=off explicitly.");
} else {
  console.error(`sandbox: ${choice.description}`);
}
const leftovers = await removeLeftoverJobFolders(settings.workDir);
if (leftovers.length) console.error(`removed ${leftovers.length} job folder(s) a previous runner left in ${settings.workDir}`);
const manager = createJobManager(settings);
const sandbox = choice.kind === "none" ? "off" : (choice.kind ?? "unavailable");
const server = createRunnerServer(manager, { concurrency: settings.concurrency, sandbox, sandboxDescription: choice.description }, settings);
server.listen(settings.port, settings.host, () => {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : settings.port;
  // The dev launcher and test setup read this line to learn the port.
  console.log(`ffjobs runner listening on http://${settings.host}:${port} (concurrency ${settings.concurrency}, sandbox ${sandbox})`);
});
const stop = () => server.close(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
