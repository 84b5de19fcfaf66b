import { describe, expect, it } from "vitest";
import { resolveCredentials } from "../../scripts/deploy/credentials.ts";
import { DeployError, type Inventory } from "../../scripts/deploy/inventory.ts";
import { describeStep, planAfterDeploy, planDeploy, type Step } from "../../scripts/deploy/plan.ts";
import { newKey } from "../../scripts/api-key-sql.ts";

const ACCOUNT = "0123456789abcdef0123456789abcdef";
const WORK = "/tmp/ffjobs-deploy-test";
const fresh: Inventory = {
  accountId: ACCOUNT,
  databases: [],
  buckets: [],
  queues: [],
  secrets: [],
  workerExists: false,
};
const deployed: Inventory = {
  accountId: ACCOUNT,
  databases: ["ffjobs", "other-db"],
  buckets: ["ffjobs-media"],
  queues: ["ffjobs-jobs", "ffjobs-jobs-dlq", "ffjobs-webhooks", "ffjobs-webhooks-dlq"],
  secrets: ["R2_ACCESS_KEY_ID", "R2_SECRET_ACCESS_KEY"],
  workerExists: true,
};
const token = { R2_ACCESS_KEY_ID: "AKID-example", R2_SECRET_ACCESS_KEY: "secret-example" };
const commands = (steps: Step[]) => steps.map(describeStep);

describe("the deploy plan", () => {
  it("on a fresh account creates everything, migrates, builds the dashboard and deploys with the R2 secrets", async () => {
    const credentials = await resolveCredentials(token, fresh);
    const steps = planDeploy({ inventory: fresh, credentials, flags: {}, workDir: WORK });
    expect(commands(steps)).toEqual([
      "wrangler d1 create ffjobs",
      "wrangler r2 bucket create ffjobs-media",
      "wrangler queues create ffjobs-jobs",
      "wrangler queues create ffjobs-jobs-dlq",
      "wrangler queues create ffjobs-webhooks",
      "wrangler queues create ffjobs-webhooks-dlq",
      "wrangler d1 migrations apply DB --remote",
      "(build) compile the typed client into the dashboard's assets",
      `wrangler deploy --var R2_S3_ENDPOINT:https://${ACCOUNT}.r2.cloudflarestorage.com --secrets-file ${WORK}/r2-secrets.json`,
    ]);
    const deploy = steps.at(-1) as Extract<Step, { kind: "wrangler" }>;
    // The secrets reach wrangler only through a file that is removed after the step, never argv or the log.
    expect(deploy.files).toEqual([{ path: `${WORK}/r2-secrets.json`, content: JSON.stringify(token), secret: true }]);
    expect(commands(steps).join("\n")).not.toContain("secret-example");
    expect(deploy.env).toEqual({ WRANGLER_OUTPUT_FILE_PATH: `${WORK}/wrangler-output.ndjson` });
  });

  it("on a second run creates nothing and keeps the secrets already set", async () => {
    const credentials = await resolveCredentials({}, deployed, async () => expect.fail("must not ask"));
    expect(credentials).toEqual({ kind: "keep" });
    expect(commands(planDeploy({ inventory: deployed, credentials, flags: {}, workDir: WORK }))).toEqual([
      "wrangler d1 migrations apply DB --remote",
      "(build) compile the typed client into the dashboard's assets",
      `wrangler deploy --var R2_S3_ENDPOINT:https://${ACCOUNT}.r2.cloudflarestorage.com`,
    ]);
  });

  it("creates only what is missing, and sets credentials given in the environment over existing ones (rotation)", async () => {
    const partial = { ...deployed, queues: ["ffjobs-jobs", "ffjobs-webhooks"] };
    const steps = planDeploy({
      inventory: partial,
      credentials: await resolveCredentials(token, partial),
      flags: { containersRollout: "immediate" },
      workDir: WORK,
    });
    expect(commands(steps).filter((c) => c.includes("create"))).toEqual([
      "wrangler queues create ffjobs-jobs-dlq",
      "wrangler queues create ffjobs-webhooks-dlq",
    ]);
    expect(commands(steps).at(-1)).toContain("--secrets-file");
    expect(commands(steps).at(-1)).toMatch(/--containers-rollout=immediate$/);
  });

  it("stops before anything runs when the R2 credentials are missing, saying how to make them", async () => {
    for (const [env, reason] of [
      [{}, "not a terminal"],
      [{ R2_ACCESS_KEY_ID: "AKID" }, "only R2_ACCESS_KEY_ID is set"],
      [{ R2_SECRET_ACCESS_KEY: "s" }, "only R2_SECRET_ACCESS_KEY is set"],
    ] as const) {
      const credentials = await resolveCredentials(env, fresh);
      expect(credentials.kind).toBe("missing");
      const plan = () => planDeploy({ inventory: fresh, credentials, flags: {}, workDir: WORK });
      expect(plan).toThrow(DeployError);
      expect(plan).toThrow(reason);
      expect(plan).toThrow(/R2 API token.*Object Read & Write.*R2_ACCESS_KEY_ID and R2_SECRET_ACCESS_KEY/s);
    }
    // One of the two secrets set earlier is not enough to keep.
    expect((await resolveCredentials({}, { secrets: ["R2_ACCESS_KEY_ID"] })).kind).toBe("missing");
  });

  it("asks for the token in a terminal (the secret hidden), and an empty answer is missing", async () => {
    const asked: [string, boolean][] = [];
    const answers = ["AKID-typed ", "secret-typed"];
    const creds = await resolveCredentials({}, fresh, async (q, hidden) => {
      asked.push([q, hidden]);
      return answers.shift()!;
    });
    expect(creds).toEqual({ kind: "set", accessKeyId: "AKID-typed", secretAccessKey: "secret-typed" });
    expect(asked.map(([, hidden]) => hidden)).toEqual([false, true]);
    expect((await resolveCredentials({}, fresh, async () => "")).kind).toBe("missing");
  });
});

describe("after the deploy", () => {
  it("sets the bucket's CORS rule for the Worker's origin, then runs the smoke test with a key it revokes", async () => {
    const key = await newKey(new Date("2026-01-02T03:04:05Z"));
    const url = "https://ffjobs.example-sub.workers.dev";
    const steps = planAfterDeploy({ workDir: WORK, origins: [url, "https://media.example.com"], smoke: { url, key } });
    expect(commands(steps).map((c) => c.replace(/'.*'/, "'<sql>'"))).toEqual([
      `wrangler r2 bucket cors set ffjobs-media --file ${WORK}/r2-cors.json --force`,
      "wrangler d1 execute DB --remote --command '<sql>'",
      `(smoke) npm run smoke -- --url ${url} --key <smoke key>`,
      "wrangler d1 execute DB --remote --command '<sql>'",
    ]);
    const cors = JSON.parse((steps[0] as Extract<Step, { kind: "wrangler" }>).files![0].content);
    expect(cors.rules[0].allowed).toEqual({
      origins: [url, "https://media.example.com"],
      methods: ["GET", "HEAD", "PUT"],
      headers: ["Content-Type", "If-None-Match"],
    });
    const [, create, smoke, revoke] = steps as Extract<Step, { kind: "wrangler" }>[];
    expect(create.args.at(-1)).toContain(key.hash);
    expect(create.args.at(-1)).not.toContain(key.key);
    expect(create.args.at(-1)).toContain("'ffjobs-smoke'");
    // An operator's: the smoke test reads the platform report (POST /v1/admin/platform-report).
    expect(create.args.at(-1)).toContain("UPDATE accounts SET operator = 1 WHERE name = 'ffjobs-smoke';");
    expect((smoke as unknown as Extract<Step, { kind: "smoke" }>).apiKey).toBe(key.key);
    expect(revoke.args.at(-1)).toMatch(/UPDATE api_keys SET revoked_at = .* WHERE key_hash = '[0-9a-f]{64}'/);
    expect(revoke.always).toBe(true);
  });

  it("without the smoke test only sets CORS (and the operator's key with --create-key); with no origin it stops", async () => {
    const firstKey = await newKey(new Date(), "me@example.com");
    const steps = planAfterDeploy({ workDir: WORK, origins: ["https://x.workers.dev"], smoke: null, firstKey });
    expect(steps.map((s) => s.why)).toEqual([
      "allow the dashboard's uploads from https://x.workers.dev (R2 CORS)",
      "create an API key for account me@example.com",
    ]);
    expect(() => planAfterDeploy({ workDir: WORK, origins: [], smoke: null })).toThrow(/--origin/);
  });
});
