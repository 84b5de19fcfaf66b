// npm run dev: the whole service on this machine. Applies local migrations, seeds an API key,
// starts the runner (host ffmpeg) and `wrangler dev` (containers off), and prints where they are.
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { createKey, localTarget } from "./keys.ts";
import { projectRoot, spawnWrangler, wrangler } from "./wrangler.ts";

const LOCAL_S3 = { accessKeyId: "local-dev-access-key", secretAccessKey: "local-dev-secret-key" };
const READY_TIMEOUT_MS = 60_000;

const port = Number(process.env.PORT || 8787);
const runnerPort = Number(process.env.RUNNER_PORT || port + 10);
const host = "127.0.0.1";
const children: ChildProcess[] = [];

function stopAll(code: number): never {
  for (const child of children) if (child.exitCode === null) child.kill("SIGTERM");
  process.exit(code);
}
process.on("SIGINT", () => stopAll(0));
process.on("SIGTERM", () => stopAll(0));

function supervise(name: string, child: ChildProcess) {
  children.push(child);
  child.on("exit", (code) => {
    console.error(`[ffjobs] ${name} exited (${code}); stopping.`);
    stopAll(code || 1);
  });
}

async function waitFor(url: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not come up within ${READY_TIMEOUT_MS / 1000} s`);
}

async function main() {
  const target = localTarget();
  wrangler(["d1", "migrations", "apply", "DB", ...target], { quiet: true });
  const apiKey = await createKey({ account: process.env.DEV_ACCOUNT || "dev", credits: null, target, key: process.env.DEV_API_KEY || undefined });

  supervise(
    "runner",
    spawn(process.execPath, [join(projectRoot, "container/src/main.ts")], {
      stdio: ["ignore", "inherit", "inherit"],
      env: { ...process.env, RUNNER_HOST: host, RUNNER_PORT: String(runnerPort) },
    }),
  );
  const vars: Record<string, string> = {
    RUNNER_MODE: "local",
    RUNNER_URL: `http://${host}:${runnerPort}`,
    R2_S3_ENDPOINT: `http://${host}:${port}/cdn-cgi/local/r2/s3`,
    R2_ACCESS_KEY_ID: LOCAL_S3.accessKeyId,
    R2_SECRET_ACCESS_KEY: LOCAL_S3.secretAccessKey,
    ALLOWED_PRIVATE_HOSTS: process.env.ALLOWED_PRIVATE_HOSTS ?? "",
    ...(process.env.RUNNER_POLL_INTERVAL_MS ? { RUNNER_POLL_INTERVAL_MS: process.env.RUNNER_POLL_INTERVAL_MS } : {}),
    ...(process.env.JOB_TIMEOUT_SECONDS ? { JOB_TIMEOUT_SECONDS: process.env.JOB_TIMEOUT_SECONDS } : {}),
    ...(process.env.CREDITS_PER_SECOND ? { CREDITS_PER_SECOND: process.env.CREDITS_PER_SECOND } : {}),
  };
  const state = process.env.FFJOBS_STATE_DIR;
  supervise(
    "wrangler dev",
    spawnWrangler(
      [
        "dev", "--ip", host, "--port", String(port), "--inspector-port", "0", "--enable-containers=false", "--show-interactive-dev-session=false",
        ...(state ? ["--persist-to", state] : []),
        ...Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]),
      ],
      { stdio: ["ignore", process.env.FFJOBS_DEV_QUIET ? "ignore" : "inherit", "inherit"] },
    ),
  );
  await waitFor(`http://${host}:${port}/openapi.json`);
  await waitFor(`http://${host}:${runnerPort}/healthz`);
  console.log(`\nffjobs is running at http://${host}:${port}\nAPI key: ${apiKey}\n`);
  console.log(`Try: curl -H "Authorization: Bearer ${apiKey}" http://${host}:${port}/v1/jobs`);
}

main().catch((err: Error) => {
  console.error(`[ffjobs] ${err.message}`);
  stopAll(1);
});
