// npm run deploy [-- --create-key ACCOUNT] [--origin https://your.domain] [--plan] [--skip-smoke]
//                [--smoke-input-url URL] [--containers-rollout immediate|gradual]
// Everything a deploy needs but logging in and making the R2 API token: reads what exists, creates what
// is missing, applies migrations, builds the dashboard, deploys, sets the bucket's CORS rule for the
// Worker's origin and ends with the smoke test. docs/deploy.md explains each step.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildDashboardClient } from "./build-dashboard.ts";
import { dashboardOrigins, deployTargetsFromOutput } from "./deploy/cors.ts";
import { resolveCredentials } from "./deploy/credentials.ts";
import { executePlan, type Executors } from "./deploy/execute.ts";
import { removeOnInterrupt } from "./deploy/interrupts.ts";
import { DeployError, discover } from "./deploy/inventory.ts";
import { DEPLOY_OUTPUT_FILE, describeStep, planAfterDeploy, planDeploy, type DeployFlags } from "./deploy/plan.ts";
import { realWrangler } from "./deploy/run-wrangler.ts";
import { newKey } from "./api-key-sql.ts";
import { terminalAsk } from "./deploy/terminal-ask.ts";
import { realClock } from "./smoke/cold-start.ts";
import { runSmoke } from "./smoke/run-smoke.ts";
import { failures } from "./smoke/finding.ts";
import { DEFAULT_WAIT_MINUTES } from "./smoke.ts";

const SMOKE_RETRY_EVERY_MS = 15_000;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      origin: { type: "string", multiple: true, default: [] },
      plan: { type: "boolean", default: false },
      "skip-smoke": { type: "boolean", default: false },
      "smoke-input-url": { type: "string" },
      "containers-rollout": { type: "string" },
      "create-key": { type: "string" },
    },
  });
  const rollout = values["containers-rollout"];
  if (rollout !== undefined && rollout !== "immediate" && rollout !== "gradual")
    throw new DeployError("--containers-rollout must be immediate or gradual");
  const flags: DeployFlags = { containersRollout: rollout };
  const log = (line: string) => console.log(line);
  const wrangler = realWrangler();

  log("Reading what exists on the account ...");
  const inventory = discover(wrangler, process.env.CLOUDFLARE_ACCOUNT_ID);
  log(`  account ${inventory.accountId}; Worker ${inventory.workerExists ? "deployed" : "not deployed yet"}`);
  const credentials = await resolveCredentials(process.env, inventory, values.plan ? undefined : terminalAsk());
  const workDir = mkdtempSync(join(tmpdir(), "ffjobs-deploy-"));
  const stopRemovingOnInterrupt = removeOnInterrupt(workDir);
  try {
    const steps = planDeploy({ inventory, credentials, flags, workDir });
    if (values.plan) {
      log("The deploy would run:");
      for (const s of steps) log(`  ${describeStep(s)}`);
      log("  then: R2 CORS for the Worker's origin, and the smoke test");
      return;
    }
    const x: Executors = {
      wrangler,
      buildDashboard: buildDashboardClient,
      log,
      accountId: inventory.accountId,
      smoke: async () => {},
    };
    await executePlan(steps, x);

    const targets = deployTargetsFromOutput(readFileSync(join(workDir, DEPLOY_OUTPUT_FILE), "utf8"));
    const origins = dashboardOrigins(targets, values.origin);
    const url = origins[0];
    const smoke = values["skip-smoke"] ? null : { url, key: await newKey(), inputUrl: values["smoke-input-url"] };
    const firstKey = values["create-key"] ? await newKey(new Date(), values["create-key"]) : undefined;
    const patience = {
      budgetMs: DEFAULT_WAIT_MINUTES * 60_000,
      retryEveryMs: SMOKE_RETRY_EVERY_MS,
      clock: realClock,
      log,
    };
    await executePlan(planAfterDeploy({ workDir, origins, smoke, firstKey }), {
      ...x,
      smoke: async (step) => {
        const failed = failures(
          await runSmoke({ url: step.url, apiKey: step.apiKey, inputUrl: step.inputUrl }, { fetch, patience }),
        );
        if (failed.length)
          throw new Error(
            `the smoke test's platform checks found ${failed.map((f) => f.check).join(", ")} not as expected (what to do is printed above)`,
          );
      },
    });
    log(`\nffjobs is deployed at ${url} (dashboard: ${url}/dashboard/).`);
    if (firstKey)
      log(`API key for account "${firstKey.account}" (shown once, stored only as a hash):\n${firstKey.key}`);
    else log("For an API key: npm run deploy -- --create-key <account> --skip-smoke (see docs/deploy.md).");
  } finally {
    rmSync(workDir, { recursive: true, force: true });
    stopRemovingOnInterrupt();
  }
}

main().catch((err: Error) => {
  console.error(err instanceof DeployError ? `\ndeploy stopped: ${err.message}` : err);
  process.exit(1);
});
