// npm run dev: the whole service on this machine. Applies local migrations, seeds an API key,
// starts the runner (host ffmpeg) and `wrangler dev` (containers off), and prints where they are.
// npm run dev:containers (`--containers`): the production path instead: no local runner, every job
// runs in a real container built from container/Dockerfile, on the lab's Docker engine (lab/).
import { spawn } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { prepareLab } from "../lab/prepare.ts";
import { startHostsResolver } from "../lab/hosts-resolver.ts";
import { createKey, localTarget } from "./keys.ts";
import { createSupervisor } from "./supervisor.ts";
import { projectRoot, spawnWrangler, wrangler, wranglerEnv } from "./wrangler.ts";
import { buildDashboardClient } from "./build-dashboard.ts";
import { newRunnerSecret } from "../src/runner/runner-secret.ts";
import { startFrontDoor } from "./dev-front-door.ts";
import { enforceLocalRowSize } from "./d1-local-row-size.ts";
import { createServer } from "node:net";

/** wrangler.toml's local S3 credentials: public constants, replaced in a config of this run's own (devConfig). */
const CONSTANT_S3 = { accessKeyId: "local-dev-access-key", secretAccessKey: "local-dev-secret-key" };
const READY_TIMEOUT_MS = 60_000;
/** A first container build (apt inside the image) takes longer than starting wrangler. */
const CONTAINER_READY_TIMEOUT_MS = 10 * 60_000;

const containers = process.argv.includes("--containers");
// Containers reach the API's storage endpoint only through port 80 (the egress hands the Worker
// no other port), so the container mode serves on port 80.
const port = Number(process.env.PORT || (containers ? 80 : 8787));
const runnerPort = Number(process.env.RUNNER_PORT || port + 10);
const host = process.env.HOST || "127.0.0.1";
/**
 * The name clients and the service's own URLs use, where it differs from the address bound (the
 * container suite serves on a public address by name, as production is reached; HOST stays the
 * address; the front door hands miniflare's storage endpoint the name its URLs were signed for).
 */
const publicHost = process.env.PUBLIC_HOST || host;
const supervisor = createSupervisor((message) => console.error(`[ffjobs] ${message}`));
/** The sweeper (re-sends stalled jobs) runs on cron in production; wrangler dev fires no cron. */
const SWEEP_INTERVAL_MS = Number(process.env.FFJOBS_SWEEP_INTERVAL_MS || 60_000);

async function waitFor(url: string, timeoutMs = READY_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not come up within ${timeoutMs / 1000} s`);
}

async function main() {
  const target = localTarget();
  // Secrets of this run only (never constants in the repository): the one the Worker and the runner
  // share, and the key of the Worker's own storage tokens (miniflare's S3 key is a public constant).
  const runnerSecret = newRunnerSecret();
  const storageTokenSecret = newRunnerSecret();
  // miniflare serves the bucket's S3 API on the API's origin to anyone who can sign for it: with the
  // repository's constant credentials, anyone could read or write every object (and have a file
  // served as a page of this origin). This run signs with credentials of its own instead.
  const localS3 = { accessKeyId: `dev-${newRunnerSecret().slice(0, 16)}`, secretAccessKey: newRunnerSecret() };
  const config = devConfig(localS3);
  wrangler(["d1", "migrations", "apply", "DB", ...target], { quiet: true });
  // Rows over D1's 2,000,000 bytes are refused locally as production refuses them.
  await enforceLocalRowSize(target);
  buildDashboardClient();
  // The developer's own stack: its key is the operator's too, so the dashboard's metrics page shows.
  const apiKey = await createKey({
    account: process.env.DEV_ACCOUNT || "dev",
    credits: null,
    target,
    key: process.env.DEV_API_KEY || undefined,
    operator: true,
  });

  if (containers && port !== 80)
    console.error(
      `[ffjobs] warning: PORT=${port}: containers can reach storage only on port 80; jobs with outputs or uploaded inputs will fail`,
    );
  const labEnv = containers ? await prepareLab() : {};
  // The containers' egress checks where a client URL really goes with a DNS-over-HTTPS resolver;
  // locally that is the lab's, answering from /etc/hosts (nothing leaves the machine).
  const resolver = containers ? await startHostsResolver() : null;
  if (!containers) {
    // A runner that dies is restarted; jobs it had are retried by their coordinators.
    const workDir = process.env.RUNNER_WORK_DIR || join(tmpdir(), `ffjobs-runner-${runnerPort}`);
    supervisor.restarted("runner", () =>
      spawn(process.execPath, [join(projectRoot, "container/src/main.ts")], {
        stdio: ["ignore", "inherit", "inherit"],
        env: {
          ...process.env,
          RUNNER_HOST: host,
          RUNNER_PORT: String(runnerPort),
          RUNNER_WORK_DIR: workDir,
          RUNNER_CONTROL_SECRET: runnerSecret,
        },
      }),
    );
  }
  const passThrough = [
    "RUNNER_POLL_INTERVAL_MS",
    "STALLED_JOB_SECONDS",
    "JOB_TIMEOUT_SECONDS",
    "CREDITS_PER_SECOND",
    "CONTAINER_RUNNER_SANDBOX",
    "CONTAINER_PLACEMENT",
    "CONTAINER_JOB_DISK_BYTES",
  ];
  const vars: Record<string, string> = {
    ...(containers
      ? { RUNNER_MODE: "container", EGRESS_RESOLVER_URL: resolver!.url }
      : {
          RUNNER_MODE: "local",
          RUNNER_URL: `http://${host}:${runnerPort}`,
          RUNNER_NOTIFY_BASE_URL: `http://${publicHost}:${port}`,
          RUNNER_CONTROL_SECRET: runnerSecret,
        }),
    STORAGE_TOKEN_SECRET: storageTokenSecret,
    // The platform's per-invocation limits (Workers Paid), which wrangler dev does not enforce:
    // D1 queries, and subrequests of every kind (src/platform/invocation-budget.ts).
    D1_QUERY_LIMIT_PER_INVOCATION: "1000",
    SUBREQUEST_LIMIT_PER_INVOCATION: "10000",
    R2_S3_ENDPOINT: `http://${publicHost}:${port}/cdn-cgi/local/r2/s3`,
    R2_ACCESS_KEY_ID: localS3.accessKeyId,
    R2_SECRET_ACCESS_KEY: localS3.secretAccessKey,
    ALLOWED_PRIVATE_HOSTS: process.env.ALLOWED_PRIVATE_HOSTS ?? "",
    ...Object.fromEntries(passThrough.filter((k) => process.env[k]).map((k) => [k, process.env[k]!])),
  };
  const state = process.env.FFJOBS_STATE_DIR;
  // wrangler listens on a private port behind the front door, which refuses miniflare's own endpoints.
  const innerPort = await freePort(host);
  supervisor.essential(
    "wrangler dev",
    spawnWrangler(
      [
        "dev",
        "--config",
        config,
        "--ip",
        host,
        "--port",
        String(innerPort),
        "--inspector-port",
        "0",
        `--enable-containers=${containers}`,
        "--show-interactive-dev-session=false",
        "--test-scheduled",
        ...(state ? ["--persist-to", state] : []),
        ...Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]),
      ],
      // X_LOCAL_EXPLORER: miniflare's explorer (SQL on D1, any object of R2) stays off as well.
      {
        stdio: ["ignore", process.env.FFJOBS_DEV_QUIET ? "ignore" : "inherit", "inherit"],
        env: wranglerEnv({ ...labEnv, X_LOCAL_EXPLORER: "false" }),
      },
    ),
  );
  await startFrontDoor(host, port, innerPort);
  await waitFor(
    `http://${publicHost}:${port}/openapi.json`,
    containers ? CONTAINER_READY_TIMEOUT_MS : READY_TIMEOUT_MS,
  );
  if (!containers) await waitFor(`http://${host}:${runnerPort}/healthz`);
  const sweep = () =>
    fetch(`http://${host}:${port}/__scheduled?cron=*+*+*+*+*`).then(
      (r) => r.body?.cancel(),
      () => {},
    );
  void sweep();
  setInterval(sweep, SWEEP_INTERVAL_MS);
  console.log(
    `\nffjobs is running at http://${publicHost}:${port}${containers ? " (jobs run in containers)" : ""}\nAPI key: ${apiKey}\n`,
  );
  console.log(`Try: curl -H "Authorization: Bearer ${apiKey}" http://${publicHost}:${port}/v1/jobs`);
}

function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().once("error", reject);
    s.listen(0, host, () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/**
 * wrangler.toml with this run's S3 credentials, beside it (its relative paths stay valid), git-ignored,
 * removed when the launcher exits.
 */
function devConfig(s3: { accessKeyId: string; secretAccessKey: string }): string {
  const text = readFileSync(join(projectRoot, "wrangler.toml"), "utf8");
  const replaced = text
    .replace(CONSTANT_S3.accessKeyId, s3.accessKeyId)
    .replace(CONSTANT_S3.secretAccessKey, s3.secretAccessKey);
  if (replaced === text) throw new Error("wrangler.toml no longer has the local S3 credentials dev.ts replaces");
  const path = join(projectRoot, `wrangler.dev-${process.pid}.toml`);
  writeFileSync(path, replaced, { mode: 0o600 });
  process.on("exit", () => rmSync(path, { force: true }));
  return path;
}

main().catch((err: Error) => {
  console.error(`[ffjobs] ${err.message}`);
  void supervisor.stopAll(1);
});
