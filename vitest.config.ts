import { availableParallelism } from "node:os";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { freePort } from "./test/support/free-port.ts";
import { newRunnerSecret } from "./src/runner/runner-secret.ts";

// One runner process serves the workers-runtime tests; its port is chosen here so the Worker's
// bindings can name it, and test/worker/global-setup.ts starts it.
process.env.FFJOBS_TEST_RUNNER_PORT ??= String(await freePort());
// The secret the Worker and that runner share: random per run, like the dev launcher's.
process.env.FFJOBS_TEST_RUNNER_SECRET ??= newRunnerSecret();
const runnerUrl = `http://127.0.0.1:${process.env.FFJOBS_TEST_RUNNER_PORT}`;

/**
 * The Worker's npm dependencies (with the subpaths the Worker and its tests import), bundled once per
 * run. Each workers-runtime test file starts its own workerd, which would otherwise load them module
 * by module (zod alone is about a hundred): on two cores the suite took 270 s without this, 160 s with
 * it (40 files). A specifier missing here still works, only slower.
 */
const WORKER_DEPENDENCIES = [
  "@cloudflare/containers",
  "@hono/zod-openapi",
  "@hono/zod-validator",
  "aws4fetch",
  "hono",
  "hono/body-limit",
  "hono/factory",
  "hono/http-exception",
  "zod",
  "fast-check",
  "standardwebhooks",
];

// Which projects run when (npm test, npm run test:slow) is declared in test/suites.ts.
export default defineConfig({
  test: {
    // Test files spend much of their time waiting on other processes (ffmpeg, workerd, a local stack),
    // so two share two cores well; vitest's default, one core less than the machine has, would run
    // one file at a time there.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        // One process runs many unit files, one after another (vitest's isolate: false): they test pure
        // modules and leave nothing behind (no vi.mock, vi.stubEnv or vi.stubGlobal; a changed working
        // folder put back), and a fresh process for each of them cost more than their tests. The time
        // limit is a hang guard: in npm test they share the machine with the other suites, and a few
        // (generating the client's types, the deploy script's runs) take seconds.
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts"],
          environment: "node",
          isolate: false,
          testTimeout: 30_000,
        },
      },
      {
        test: { name: "runner", include: ["test/runner/**/*.test.ts"], environment: "node", testTimeout: 60_000 },
      },
      {
        plugins: [
          cloudflareTest({
            main: "./src/index.ts",
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              bindings: {
                TEST_MIGRATIONS: await readD1Migrations("./migrations"),
                RUNNER_MODE: "local",
                RUNNER_URL: runnerUrl,
                RUNNER_CONTROL_SECRET: process.env.FFJOBS_TEST_RUNNER_SECRET,
                // The platform's per-invocation limits on Workers Paid, which miniflare does not enforce
                // (src/platform/invocation-budget.ts): D1 queries, and subrequests of every kind.
                D1_QUERY_LIMIT_PER_INVOCATION: "1000",
                SUBREQUEST_LIMIT_PER_INVOCATION: "10000",
                RUNNER_POLL_INTERVAL_MS: "100",
                // Real queue retries, fast: attempts 1 s apart (production default spans ~21 h).
                WEBHOOK_RETRY_SCHEDULE_SECONDS: "1,1,1",
                ALLOWED_PRIVATE_HOSTS: "127.0.0.1",
                // The containers' egress resolver: a loopback path that answers 404, so the check
                // fails closed, and no test ever asks Cloudflare's public resolver.
                EGRESS_RESOLVER_URL: `${runnerUrl}/no-resolver-here`,
                // URLs are minted, never fetched, in these tests: the e2e suite exercises real storage.
                R2_S3_ENDPOINT: "http://127.0.0.1:9/cdn-cgi/local/r2/s3",
                R2_ACCESS_KEY_ID: "test-access-key",
                R2_SECRET_ACCESS_KEY: "test-secret-key",
              },
            },
          }),
        ],
        test: {
          name: "worker",
          include: ["test/worker/**/*.test.ts"],
          deps: { optimizer: { ssr: { enabled: true, include: WORKER_DEPENDENCIES } } },
          setupFiles: ["./test/worker/apply-migrations.ts"],
          globalSetup: ["./test/worker/global-setup.ts"],
          testTimeout: 30_000,
        },
      },
      // The end-to-end slice npm test runs: one local stack, every interface once.
      {
        test: {
          name: "slice",
          include: ["test/slice/**/*.test.ts"],
          environment: "node",
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          environment: "node",
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: "faults",
          include: ["test/faults/**/*.test.ts"],
          environment: "node",
          testTimeout: 180_000,
          hookTimeout: 120_000,
        },
      },
      // Real containers on the lab's Docker engine (root, Linux): `npm run test:containers` only.
      ...(process.env.FFJOBS_CONTAINER_SUITE
        ? [
            {
              test: {
                name: "container",
                include: ["test/container/**/*.test.ts"],
                environment: "node",
                testTimeout: 180_000,
                hookTimeout: 900_000,
                fileParallelism: false,
              },
            },
          ]
        : []),
    ],
  },
});
