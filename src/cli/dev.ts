// npm run dev: the whole service on this machine. Applies local migrations, seeds an API key,
// starts the runner (host ffmpeg) and `wrangler dev` (containers off), and prints where they are.
// npm run dev:containers (`--containers`): the production path instead: no local runner, every job
// runs in a real container built from container/Dockerfile, on the lab's Docker engine (lab/).
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { prepareLab } from "../../lab/prepare.ts";
import { createKey, localTarget } from "./keys.ts";
import { projectRoot, spawnWrangler, wrangler, wranglerEnv } from "./wrangler.ts";

const LOCAL_S3 = { accessKeyId: "local-dev-access-key", secretAccessKey: "local-dev-secret-key" };
const READY_TIMEOUT_MS = 60_000;
/** A first container build (apt inside the image) takes longer than starting wrangler. */
const CONTAINER_READY_TIMEOUT_MS = 10 * 60_000;

const containers = process.argv.includes("--containers");
// Containers reach the API's storage endpoint only through port 80 (the egress hands the Worker
// no other port), so the container mode serves on port 80.
const port = Number(process.env.PORT || (containers ? 80 : 8787));
const runnerPort = Number(process.env.RUNNER_PORT || port + 10);
const host = process.env.HOST || "127.0.0.1";
const children: ChildProcess[] = [];
/** How long children get to exit (wrangler removes its containers) before they are killed. */
const STOP_GRACE_MS = 15_000;
let stopping = false;

/** Stops every child and exits once they are gone, so the ports are free when this process ends. */
async function stopAll(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    const running = children.filter((c) => c.exitCode === null && c.signalCode === null);
    const exited = Promise.all(running.map((c) => new Promise((r) => c.once("exit", r))));
    for (const child of running) child.kill("SIGTERM");
    const grace = setTimeout(() => running.forEach((c) => c.kill("SIGKILL")), STOP_GRACE_MS);
    await exited;
    clearTimeout(grace);
    process.exit(code);
  }
  return new Promise<never>(() => {});
}
process.on("SIGINT", () => void stopAll(0));
process.on("SIGTERM", () => void stopAll(0));

function supervise(name: string, child: ChildProcess) {
  children.push(child);
  child.on("exit", (code) => {
    if (stopping) return;
    console.error(`[ffjobs] ${name} exited (${code}); stopping.`);
    void stopAll(code || 1);
  });
}

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
  wrangler(["d1", "migrations", "apply", "DB", ...target], { quiet: true });
  const apiKey = await createKey({ account: process.env.DEV_ACCOUNT || "dev", credits: null, target, key: process.env.DEV_API_KEY || undefined });

  if (containers && port !== 80) console.error(`[ffjobs] warning: PORT=${port}: containers can reach storage only on port 80; jobs with outputs or uploaded inputs will fail`);
  const labEnv = containers ? await prepareLab() : {};
  if (!containers) {
    supervise(
      "runner",
      spawn(process.execPath, [join(projectRoot, "container/src/main.ts")], {
        stdio: ["ignore", "inherit", "inherit"],
        env: { ...process.env, RUNNER_HOST: host, RUNNER_PORT: String(runnerPort) },
      }),
    );
  }
  const passThrough = ["RUNNER_POLL_INTERVAL_MS", "JOB_TIMEOUT_SECONDS", "CREDITS_PER_SECOND", "CONTAINER_RUNNER_SANDBOX", "CONTAINER_PLACEMENT"];
  const vars: Record<string, string> = {
    ...(containers ? { RUNNER_MODE: "container" } : { RUNNER_MODE: "local", RUNNER_URL: `http://${host}:${runnerPort}` }),
    R2_S3_ENDPOINT: `http://${host}:${port}/cdn-cgi/local/r2/s3`,
    R2_ACCESS_KEY_ID: LOCAL_S3.accessKeyId,
    R2_SECRET_ACCESS_KEY: LOCAL_S3.secretAccessKey,
    ALLOWED_PRIVATE_HOSTS: process.env.ALLOWED_PRIVATE_HOSTS ?? "",
    ...Object.fromEntries(passThrough.filter((k) => process.env[k]).map((k) => [k, process.env[k]!])),
  };
  const state = process.env.FFJOBS_STATE_DIR;
  supervise(
    "wrangler dev",
    spawnWrangler(
      [
        "dev", "--ip", host, "--port", String(port), "--inspector-port", "0", `--enable-containers=${containers}`, "--show-interactive-dev-session=false",
        ...(state ? ["--persist-to", state] : []),
        ...Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]),
      ],
      { stdio: ["ignore", process.env.FFJOBS_DEV_QUIET ? "ignore" : "inherit", "inherit"], env: wranglerEnv(labEnv) },
    ),
  );
  await waitFor(`http://${host}:${port}/openapi.json`, containers ? CONTAINER_READY_TIMEOUT_MS : READY_TIMEOUT_MS);
  if (!containers) await waitFor(`http://${host}:${runnerPort}/healthz`);
  console.log(`\nffjobs is running at http://${host}:${port}${containers ? " (jobs run in containers)" : ""}\nAPI key: ${apiKey}\n`);
  console.log(`Try: curl -H "Authorization: Bearer ${apiKey}" http://${host}:${port}/v1/jobs`);
}

main().catch((err: Error) => {
  console.error(`[ffjobs] ${err.message}`);
  void stopAll(1);
});
