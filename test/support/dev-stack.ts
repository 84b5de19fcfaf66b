import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { generateApiKey } from "../../src/auth/api-keys.ts";
import { freePort } from "./free-port.ts";

const root = resolve(import.meta.dirname, "../..");

export type DevStack = {
  baseUrl: string;
  apiKey: string;
  stateDir: string;
  env: NodeJS.ProcessEnv;
  /** Everything the stack printed so far (for failure messages). */
  logs: () => string;
  /** SIGKILL to every process of the stack (launcher, wrangler, workerd, runner) at once. */
  crash: () => Promise<void>;
  stop: () => Promise<void>;
};

/**
 * Runs `npm run dev`'s launcher (scripts/dev.ts) on free ports with its own state folder; with
 * `containers`, `npm run dev:containers` (HOST and PORT from `extraEnv`, port 80 by default).
 */
export async function startDevStack(
  extraEnv: Record<string, string> = {},
  opts: { containers?: boolean } = {},
): Promise<DevStack> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await launchDevStack(extraEnv, opts);
    } catch (err) {
      // A port found free is free only until someone takes it: on a busy machine an outgoing connection's
      // ephemeral port, or another test's stack, can land on it before wrangler binds. Only that is retried.
      if (attempt >= PORT_RACE_ATTEMPTS || !/Address already in use|EADDRINUSE/.test(String(err))) throw err;
      console.warn(
        `dev stack: a port was taken before it was bound; starting again on other ports (attempt ${attempt + 1})`,
      );
    }
  }
}

/** How many times a stack whose port was taken between choosing and binding it is started on new ports. */
const PORT_RACE_ATTEMPTS = 3;

async function launchDevStack(extraEnv: Record<string, string>, opts: { containers?: boolean }): Promise<DevStack> {
  const port = extraEnv.PORT ? Number(extraEnv.PORT) : opts.containers ? 80 : await freePort();
  const host = extraEnv.HOST ?? "127.0.0.1";
  const apiKey = extraEnv.DEV_API_KEY ?? generateApiKey();
  const stateDir = extraEnv.FFJOBS_STATE_DIR ?? mkdtempSync(join(tmpdir(), "ffjobs-e2e-state-"));
  const env = {
    ...process.env,
    PORT: String(port),
    RUNNER_PORT: String(await freePort()),
    FFJOBS_STATE_DIR: stateDir,
    DEV_API_KEY: apiKey,
    FFJOBS_DEV_QUIET: "1",
    ...extraEnv,
  };
  const args = [join(root, "scripts/dev.ts"), ...(opts.containers ? ["--containers"] : [])];
  // Its own process group, so a test can kill the whole stack at once, as a crash would.
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: root,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
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
    baseUrl: `http://${extraEnv.PUBLIC_HOST ?? host}:${port}`,
    apiKey,
    stateDir,
    env,
    logs: () => output,
    crash: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once("exit", () => done());
        process.kill(-child.pid!, "SIGKILL");
      }),
    stop: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null) return done();
        child.once("exit", () => done());
        child.kill("SIGTERM");
      }),
  };
}
