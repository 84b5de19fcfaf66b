import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { generateApiKey } from "../../src/auth/api-keys.ts";
import { freePort } from "./free-port.ts";

const root = resolve(import.meta.dirname, "../..");

export type DevStack = { baseUrl: string; apiKey: string; stateDir: string; env: NodeJS.ProcessEnv; stop: () => Promise<void> };

/** Runs `npm run dev`'s launcher (src/cli/dev.ts) on free ports with its own state folder. */
export async function startDevStack(extraEnv: Record<string, string> = {}): Promise<DevStack> {
  const port = await freePort();
  const apiKey = generateApiKey();
  const stateDir = mkdtempSync(join(tmpdir(), "ffjobs-e2e-state-"));
  const env = {
    ...process.env,
    PORT: String(port),
    RUNNER_PORT: String(await freePort()),
    FFJOBS_STATE_DIR: stateDir,
    DEV_API_KEY: apiKey,
    FFJOBS_DEV_QUIET: "1",
    ...extraEnv,
  };
  const child: ChildProcess = spawn(process.execPath, [join(root, "src/cli/dev.ts")], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
  await new Promise<void>((ready, fail) => {
    child.once("exit", (code) => fail(new Error(`dev stack exited (${code}):\n${output}`)));
    child.stdout!.on("data", (c: Buffer) => {
      output += c.toString();
      if (output.includes("ffjobs is running at")) ready();
    });
  });
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    apiKey,
    stateDir,
    env,
    stop: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null) return done();
        child.once("exit", () => done());
        child.kill("SIGTERM");
      }),
  };
}
