import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { newRunnerSecret } from "../../src/runner/runner-secret.ts";

const root = resolve(import.meta.dirname, "../..");

/**
 * Starts the real runner server (container/src/main.ts) with the host's ffmpeg on loopback, with a
 * control secret of its own unless `env` names one (callers speak to it with `secret`), and a work
 * folder of its own unless `env` names one: a runner removes the job folders it finds in its folder
 * when it starts, so runners sharing one (the default under the OS's tmp) would delete each other's
 * running jobs whenever test files run at once.
 */
export async function startRunner(
  port: number,
  env: Record<string, string> = {},
): Promise<{ url: string; secret: string; stop: () => void; child: ChildProcess; logs: () => string }> {
  const secret = env.RUNNER_CONTROL_SECRET ?? newRunnerSecret();
  const child = spawn(process.execPath, [join(root, "container/src/main.ts")], {
    env: {
      ...process.env,
      RUNNER_HOST: "127.0.0.1",
      RUNNER_PORT: String(port),
      RUNNER_CONTROL_SECRET: secret,
      RUNNER_WORK_DIR: env.RUNNER_WORK_DIR ?? mkdtempSync(join(tmpdir(), "ffjobs-test-runner-")),
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let logs = "";
  child.stderr!.on("data", (c: Buffer) => (logs += c.toString()));
  await new Promise<void>((resolveReady, reject) => {
    child.once("exit", (code) => reject(new Error(`runner exited early (${code})`)));
    child.stdout!.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("listening on")) resolveReady();
    });
  });
  return { url: `http://127.0.0.1:${port}`, secret, stop: () => child.kill("SIGKILL"), child, logs: () => logs };
}
