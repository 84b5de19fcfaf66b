import { createJobManager } from "./job-manager.ts";
import { createRunnerServer } from "./server.ts";
import { readSettings } from "./settings.ts";

const settings = readSettings(process.env);
const manager = createJobManager(settings);
const server = createRunnerServer(manager, { concurrency: settings.concurrency });
server.listen(settings.port, settings.host, () => {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : settings.port;
  // The dev launcher and test setup read this line to learn the port.
  console.log(`ffjobs runner listening on http://${settings.host}:${port} (concurrency ${settings.concurrency})`);
});
const stop = () => server.close(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
