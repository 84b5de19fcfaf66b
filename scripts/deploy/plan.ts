// The deploy as data: what `npm run deploy` would run, decided from what exists, the flags and the
// credentials, without running anything (test/unit/deploy-plan.test.ts reads plans; execute.ts runs them).
import { join } from "node:path";
import { corsRules } from "./cors.ts";
import { CREDENTIALS_HELP, type R2Credentials } from "./credentials.ts";
import { DeployError, type Inventory } from "./inventory.ts";
import { D1_DATABASE, QUEUES, R2_BUCKET, r2Endpoint } from "./resources.ts";
import { createKeySql, revokeKeySql, type NewKey } from "../api-key-sql.ts";

export type FileToWrite = {
  path: string;
  content: string /** removed after the step, never printed */;
  secret?: boolean;
};

export type Step =
  | {
      kind: "wrangler";
      why: string;
      args: string[];
      files?: FileToWrite[];
      env?: Record<string, string>;
      show?: boolean;
      always?: boolean;
    }
  | { kind: "build-dashboard"; why: string }
  | { kind: "smoke"; why: string; url: string; apiKey: string; inputUrl?: string };

export type DeployFlags = { containersRollout?: "immediate" | "gradual" };

/** Where the deploy writes its temporary files (secrets, CORS rule, wrangler's output): a fresh 0700 folder. */
export type PlanInput = { inventory: Inventory; credentials: R2Credentials; flags: DeployFlags; workDir: string };

export const DEPLOY_OUTPUT_FILE = "wrangler-output.ndjson";

/** Everything up to and including `wrangler deploy`. */
export function planDeploy({ inventory, credentials, flags, workDir }: PlanInput): Step[] {
  if (credentials.kind === "missing")
    throw new DeployError(`R2 credentials missing (${credentials.reason}).\n${CREDENTIALS_HELP}`);
  const steps: Step[] = [];
  // wrangler would provision the database at deploy by itself, but the migrations must run first.
  if (!inventory.databases.includes(D1_DATABASE.name))
    steps.push(wrangler(`create the D1 database ${D1_DATABASE.name}`, ["d1", "create", D1_DATABASE.name]));
  if (!inventory.buckets.includes(R2_BUCKET))
    steps.push(wrangler(`create the R2 bucket ${R2_BUCKET}`, ["r2", "bucket", "create", R2_BUCKET]));
  // Automatic provisioning covers the producer queues only, not the dead-letter queues.
  for (const queue of QUEUES)
    if (!inventory.queues.includes(queue))
      steps.push(wrangler(`create the queue ${queue}`, ["queues", "create", queue]));
  steps.push(
    wrangler("apply the D1 migrations that are not applied yet", [
      "d1",
      "migrations",
      "apply",
      D1_DATABASE.binding,
      "--remote",
    ]),
  );
  steps.push({ kind: "build-dashboard", why: "compile the typed client into the dashboard's assets" });

  const deployArgs = ["deploy", "--var", `R2_S3_ENDPOINT:${r2Endpoint(inventory.accountId)}`];
  const files: FileToWrite[] = [];
  if (credentials.kind === "set") {
    // Uploaded with the new version itself: no moment where the Worker runs without them.
    const path = join(workDir, "r2-secrets.json");
    files.push({
      path,
      content: JSON.stringify({
        R2_ACCESS_KEY_ID: credentials.accessKeyId,
        R2_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      }),
      secret: true,
    });
    deployArgs.push("--secrets-file", path);
  }
  if (flags.containersRollout) deployArgs.push(`--containers-rollout=${flags.containersRollout}`);
  steps.push({
    kind: "wrangler",
    why: `deploy the Worker, build and push the runner image, roll out the containers${credentials.kind === "set" ? ", set the R2 secrets" : ""}`,
    args: deployArgs,
    files,
    env: { WRANGLER_OUTPUT_FILE_PATH: join(workDir, DEPLOY_OUTPUT_FILE) },
    show: true,
  });
  return steps;
}

export type AfterDeployInput = {
  workDir: string;
  origins: string[];
  smoke: null | { url: string; key: NewKey; inputUrl?: string };
  /** --create-key NAME: the operator's first key, printed at the end. */
  firstKey?: NewKey;
};

/** After the deploy: the bucket's CORS rule for the Worker's origin, then the smoke test with a key of its own. */
export function planAfterDeploy({ workDir, origins, smoke, firstKey }: AfterDeployInput): Step[] {
  if (origins.length === 0)
    throw new DeployError(
      "No origin for the dashboard: wrangler printed no workers.dev URL; pass --origin https://<your domain>.",
    );
  const corsPath = join(workDir, "r2-cors.json");
  const steps: Step[] = [
    wrangler(
      `allow the dashboard's uploads from ${origins.join(", ")} (R2 CORS)`,
      ["r2", "bucket", "cors", "set", R2_BUCKET, "--file", corsPath, "--force"],
      {
        files: [{ path: corsPath, content: JSON.stringify(corsRules(origins), null, 2) }],
      },
    ),
  ];
  const d1 = ["d1", "execute", D1_DATABASE.binding, "--remote", "--command"];
  if (firstKey)
    steps.push(wrangler(`create an API key for account ${firstKey.account}`, [...d1, createKeySql(firstKey)]));
  if (!smoke) return steps;
  // An operator's key: the smoke test reads the platform report (POST /v1/admin/platform-report).
  steps.push(wrangler("create the smoke test's API key", [...d1, createKeySql(smoke.key, null, true)]));
  steps.push({
    kind: "smoke",
    why: `smoke test ${smoke.url}`,
    url: smoke.url,
    apiKey: smoke.key.key,
    inputUrl: smoke.inputUrl,
  });
  steps.push(wrangler("revoke the smoke test's API key", [...d1, revokeKeySql(smoke.key)], { always: true }));
  return steps;
}

function wrangler(why: string, args: string[], extra: Partial<Extract<Step, { kind: "wrangler" }>> = {}): Step {
  return { kind: "wrangler", why, args, ...extra };
}

/** One line per step for the terminal and the tests; secrets never appear. */
export function describeStep(step: Step): string {
  if (step.kind === "build-dashboard") return `(build) ${step.why}`;
  if (step.kind === "smoke")
    return `(smoke) npm run smoke -- --url ${step.url} --key <smoke key>${step.inputUrl ? ` --input-url ${step.inputUrl}` : ""}`;
  const args = step.args.map((a) =>
    a.includes("\n") || a.length > 80 ? `'${a.slice(0, 40).replace(/\n/g, " ")}…'` : a,
  );
  return `wrangler ${args.join(" ")}`;
}
