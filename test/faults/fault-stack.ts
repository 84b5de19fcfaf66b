import { execFile, spawnSync } from "node:child_process";
import { promisify } from "node:util";
import { existsSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { apiClient, isFinished } from "../support/api-client.ts";
import { startDevStack, type DevStack } from "../support/dev-stack.ts";
import { freePort } from "../support/free-port.ts";

const root = resolve(import.meta.dirname, "../..");
const execFileAsync = promisify(execFile);
export const CAPACITY = 1;
export const INITIAL_CREDITS = 100_000;

/**
 * `npm run dev`'s stack, tuned so faults show within seconds: one runner slot, fast polls, a sweeper
 * every second that re-sends jobs untouched for 3 s. Its key belongs to an account with a credit
 * balance, so every charge can be checked against the balance.
 */
export async function startFaultStack(mediaHost: string, reuse?: { env: NodeJS.ProcessEnv; accountKey: string }) {
  const env: Record<string, string> = reuse
    ? {
        PORT: reuse.env.PORT!,
        RUNNER_PORT: reuse.env.RUNNER_PORT!,
        FFJOBS_STATE_DIR: reuse.env.FFJOBS_STATE_DIR!,
        DEV_API_KEY: reuse.env.DEV_API_KEY!,
      }
    : { RUNNER_PORT: String(await freePort()) };
  const stack = await startDevStack({
    ...env,
    ALLOWED_PRIVATE_HOSTS: mediaHost,
    RUNNER_CONCURRENCY: String(CAPACITY),
    RUNNER_POLL_INTERVAL_MS: "200",
    STALLED_JOB_SECONDS: "3",
    FFJOBS_SWEEP_INTERVAL_MS: "1000",
    RUNNER_WORK_DIR: join(tmpdir(), `ffjobs-faults-${env.RUNNER_PORT}`),
  });
  const accountKey = reuse?.accountKey ?? (await createLimitedAccount(stack));
  return {
    stack,
    accountKey,
    api: apiClient(stack.baseUrl, accountKey),
    workDir: join(tmpdir(), `ffjobs-faults-${env.RUNNER_PORT}`),
  };
}

/**
 * The stack's sweeper (every second here) writes the same SQLite file, so a write from outside can meet
 * it busy (CI: "database is locked: SQLITE_BUSY", which commits nothing): tried again, as balanceOf's
 * reads are.
 */
async function whileBusy<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (err) {
      const said = `${(err as Error).message} ${(err as { stderr?: string }).stderr ?? ""}`;
      if (attempt >= 5 || !/SQLITE_BUSY|database is locked/.test(said)) throw err;
      await new Promise((done) => setTimeout(done, 1000));
    }
  }
}

/** The account, made with its credits (idempotent: an attempt that got as far as a key leaves one more, unused). */
async function createLimitedAccount(stack: DevStack): Promise<string> {
  return whileBusy(async () => {
    const { stdout } = await execFileAsync(
      process.execPath,
      [join(root, "scripts/keys.ts"), "create", "--account", "faults", "--credits", String(INITIAL_CREDITS), "--local"],
      { cwd: root, env: stack.env, encoding: "utf8" },
    );
    return stdout.trim().split("\n").pop()!;
  });
}

/** One statement on the stack's local D1, as an operator's `wrangler d1 execute` would run it. */
export async function executeLocalD1(stack: DevStack, sql: string): Promise<void> {
  await whileBusy(() =>
    execFileAsync(
      join(root, "node_modules/.bin/wrangler"),
      ["d1", "execute", "DB", "--local", "--persist-to", stack.stateDir, "--command", sql],
      { cwd: root, env: stack.env },
    ),
  );
}

/** The account's balance, read from the stack's local D1 (not spawnSync: see execFileAsync in faults.test.ts). */
export async function balanceOf(stack: DevStack): Promise<number> {
  // The running stack holds the same SQLite file: a read can meet it busy, so it is tried again.
  for (let attempt = 1; ; attempt++) {
    const r = await execFileAsync(
      join(root, "node_modules/.bin/wrangler"),
      [
        "d1",
        "execute",
        "DB",
        "--local",
        "--persist-to",
        stack.stateDir,
        "--json",
        "--command",
        "SELECT credit_balance AS b FROM accounts WHERE name = 'faults'",
      ],
      { cwd: root, env: { ...stack.env, CI: "true" } },
    ).catch((err: { stdout?: string; stderr?: string }) => ({ stdout: err.stdout ?? "", stderr: err.stderr ?? "" }));
    const rows = (() => {
      try {
        return JSON.parse(r.stdout)[0]?.results as { b: number }[] | undefined;
      } catch {
        return undefined;
      }
    })();
    if (rows?.length) return rows[0].b;
    if (attempt >= 5) throw new Error(`could not read the balance: ${r.stdout}\n${r.stderr}`);
    await new Promise((done) => setTimeout(done, 1000));
  }
}

/** The pid of the runner the dev launcher started last (it says so on every start). */
export function runnerPid(stack: DevStack): number {
  const pids = [...stack.logs().matchAll(/runner started \(pid (\d+)\)/g)];
  return Number(pids[pids.length - 1][1]);
}

/** How many times a runner began executing the job (the runner logs each start). */
export function runsOf(stack: DevStack, jobId: string): number {
  return stack.logs().split(`job ${jobId}: started`).length - 1;
}

/** The most of these jobs the stack's runner ever executed at once, from its start and finish lines. */
export function mostConcurrentRuns(stack: DevStack, ids: string[]): number {
  let now = 0;
  let most = 0;
  for (const m of stack.logs().matchAll(/job ([0-9a-f-]{36}): (started|finished)/g)) {
    if (!ids.includes(m[1])) continue;
    now += m[2] === "started" ? 1 : -1;
    most = Math.max(most, now);
  }
  return most;
}

export async function allFinished(api: ReturnType<typeof apiClient>, ids: string[], timeoutMs: number) {
  return Promise.all(ids.map((id) => api.waitUntil(id, isFinished, timeoutMs, 200)));
}

/** What a fault must not leave: ffmpeg processes or job folders of this stack's runner. */
export function leftovers(workDir: string): { processes: string[]; folders: string[] } {
  const ps = spawnSync("pgrep", ["-af", workDir], { encoding: "utf8" })
    .stdout.split("\n")
    .filter((l) => l.includes("ffmpeg") || l.includes("bwrap"));
  const folders = existsSync(workDir) ? readdirSync(workDir).filter((n) => /^[0-9a-f-]{36}$/.test(n)) : [];
  return { processes: ps, folders };
}
