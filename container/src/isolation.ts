import { spawnSync } from "node:child_process";
import { STREAMED_INPUT_ORIGIN } from "../../src/jobs/runner-request/job-paths.ts";
import { chownSync } from "node:fs";
import { childEnvironment } from "./command.ts";
import type { JobFolder } from "./job-folder.ts";
import { limitedCommand, sandboxedCommand, sandboxWorks, type Limits } from "./sandbox.ts";
import type { RunnerSettings } from "./settings.ts";
import { closeWorldWritableDirs, uidIsolatedCommand, uidIsolatedEnv, uidIsolationWorks } from "./uid-sandbox.ts";

/**
 * How a job's processes are kept apart from the runner, its host and other jobs:
 * - `namespaces`: bubblewrap (sandbox.ts), every namespace unshared; needs user namespaces;
 * - `uid`: a uid of the job's own, no capabilities, seccomp with no sockets (uid-sandbox.ts); needs
 *   the runner to be root in a container of its own;
 * - `none`: only limits (RUNNER_SANDBOX=off, an operator's explicit choice).
 */
export type IsolationKind = "namespaces" | "uid" | "none";
/** `fallback`: why a stronger isolation did not start, when a weaker one did (the platform report shows it). */
export type IsolationChoice = {
  kind: IsolationKind | null;
  problem: string | null;
  description: string;
  fallback: string | null;
};

const DESCRIPTIONS: Record<IsolationKind, string> = {
  namespaces: "bubblewrap: every namespace unshared, no network, only the job's folder and /usr visible",
  uid: "uid fallback (no user namespaces here): a uid per job, no capabilities, no-new-privileges, seccomp without sockets, everything but the job's folder read-only",
  none: "none: RUNNER_SANDBOX=off, limits only",
};

/** The runner's own unprivileged account (RUNNER_USER) as uid/gid, or null when it runs as who started it. */
function runnerAccount(user: string | undefined): { uid: number; gid: number } | null {
  if (!user) return null;
  const id = (flag: string) => Number(spawnSync("id", [flag, user], { encoding: "utf8" }).stdout.trim());
  const account = { uid: id("-u"), gid: id("-g") };
  if (!Number.isInteger(account.uid) || !Number.isInteger(account.gid))
    throw new Error(`RUNNER_USER ${user} does not exist`);
  return account;
}

/**
 * Chooses at start, in order of strength, what this host allows; `sandbox` narrows the choice
 * (`on`: namespaces, else the uid fallback where enabled; `namespaces`/`uid`: only that one).
 * With namespaces the runner then drops to RUNNER_USER (it needs root only for the uid fallback).
 */
export function chooseIsolation(settings: RunnerSettings): IsolationChoice {
  if (settings.sandbox === "off")
    return { kind: "none", problem: null, description: DESCRIPTIONS.none, fallback: null };
  const account = runnerAccount(settings.runnerUser);
  const problems: string[] = [];
  if (settings.sandbox !== "uid") {
    const bwrap = sandboxWorks(settings.bwrapPath, account);
    if (bwrap.ok) {
      if (account) dropTo(account, settings.workDir);
      return { kind: "namespaces", problem: null, description: DESCRIPTIONS.namespaces, fallback: null };
    }
    problems.push(`bubblewrap: ${bwrap.reason}`);
  }
  if (settings.sandbox !== "namespaces") {
    if (!settings.uidFallback)
      problems.push("uid fallback: not enabled here (RUNNER_UID_FALLBACK, set only in the runner's container image)");
    else {
      const uid = uidIsolationWorks();
      const open = uid.ok ? closeWorldWritableDirs(settings.workDir) : [];
      if (uid.ok && open.length === 0) {
        return {
          kind: "uid",
          problem: null,
          description: DESCRIPTIONS.uid,
          fallback: problems.length ? problems.join("; ") : null,
        };
      }
      problems.push(
        `uid fallback: ${uid.ok ? `world-writable ${open.join(", ")} cannot be closed to the jobs' uids` : uid.reason}`,
      );
    }
  }
  return { kind: null, problem: problems.join("; "), description: "unavailable", fallback: null };
}

function dropTo(account: { uid: number; gid: number }, workDir: string): void {
  chownSync(workDir, account.uid, account.gid);
  process.setgroups!([]);
  process.setgid!(account.gid);
  process.setuid!(account.uid);
}

/** The command line that runs a job's binary under the chosen isolation. */
export function isolatedCommand(
  settings: RunnerSettings,
  folder: JobFolder,
  binary: string,
  argv: string[],
  limits: Limits,
): { file: string; args: string[]; env: Record<string, string> } {
  if (settings.isolation === "namespaces") {
    // The relay only for a command that reads a streamed input (an output's probe reads none).
    const readsStreamed = folder.inputSocketDir !== null && argv.some((a) => a.startsWith(STREAMED_INPUT_ORIGIN));
    return {
      ...sandboxedCommand(
        binary,
        argv,
        folder.root,
        limits,
        settings.bwrapPath,
        readsStreamed ? folder.inputSocketDir : null,
      ),
      env: {},
    };
  }
  if (settings.isolation === "uid" && folder.uid !== null)
    return { ...uidIsolatedCommand(binary, argv, folder.uid, limits), env: uidIsolatedEnv(folder.root) };
  if (settings.isolation === "none")
    return { ...limitedCommand(binary, argv, limits), env: childEnvironment(folder.root) };
  throw new Error(`no isolation to run ${binary} with`);
}
