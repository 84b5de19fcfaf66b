import { spawnSync } from "node:child_process";
import { chmod, chown, readdir } from "node:fs/promises";
import { chmodSync, existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Limits } from "./sandbox.ts";
import { prlimitArgs } from "./sandbox.ts";
import { runnerUidRange } from "./uid-range.ts";

/**
 * The fallback isolation, for hosts where user namespaces (and so bubblewrap) are not available:
 * the runner, root in its container, runs each job's processes as a uid of the job's own (never
 * shared by two running jobs, never root) through setpriv (no supplementary groups, no capabilities
 * in any set, no-new-privileges), under the same prlimit limits (RLIMIT_NPROC now counts that uid's
 * processes alone), and a seccomp filter (bin/no-network-exec.py) that denies every socket, so the
 * process has no network, not even the runner's own port. File access is ordinary permissions:
 * the job's folder is open to its uid only (inputs readable, not writable), and at start the
 * runner closes the container's world-writable folders, so everything else is read-only to it.
 * What it does not give, unlike bubblewrap: a private view of the filesystem (world-readable
 * files of the image are readable) and a private /proc. docs/security.md weighs the two.
 */
const NO_NETWORK_EXEC = resolve(import.meta.dirname, "../bin/no-network-exec.py");
const PYTHON = "/usr/bin/python3";
const SETPRIV = "/usr/bin/setpriv";
/** Folders anyone may write in a Debian image (and Docker's /dev/shm): closed to the jobs' uids. */
export const WORLD_WRITABLE_DIRS = ["/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/dev/mqueue"];

let next = 0;
const inUse = new Set<number>();

/** A uid for one job, not held by another running job; give it back with `releaseUid`. */
export function allocateUid(): number {
  const range = runnerUidRange();
  if (!range) throw new Error("no job uids are mapped in this user namespace");
  for (let i = 0; i < range.size; i++) {
    const uid = range.first + ((next + i) % range.size);
    if (!inUse.has(uid)) {
      next = (next + i + 1) % range.size;
      inUse.add(uid);
      return uid;
    }
  }
  throw new Error("no free job uid");
}

export function releaseUid(uid: number): void {
  inUse.delete(uid);
}

export function uidIsolatedCommand(
  binary: string,
  argv: string[],
  uid: number,
  limits: Limits,
): { file: string; args: string[] } {
  return {
    file: "/usr/bin/prlimit",
    args: [
      ...prlimitArgs(limits),
      "--",
      SETPRIV,
      `--reuid=${uid}`,
      `--regid=${uid}`,
      "--clear-groups",
      "--no-new-privs",
      "--inh-caps=-all",
      "--bounding-set=-all",
      "--",
      PYTHON,
      "-I",
      NO_NETWORK_EXEC,
      `/usr/bin/${binary}`,
      ...argv,
    ],
  };
}

/** The environment a job's process gets: nothing of the runner's. */
export function uidIsolatedEnv(jobRoot: string): Record<string, string> {
  return { PATH: "/usr/bin:/bin", HOME: join(jobRoot, "work"), LANG: "C.UTF-8" };
}

async function chownTree(path: string, uid: number, gid: number, dirMode: number, fileMode: number): Promise<void> {
  await chown(path, uid, gid);
  await chmod(path, dirMode);
  for (const entry of await readdir(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) await chownTree(child, uid, gid, dirMode, fileMode);
    else {
      await chown(child, uid, gid);
      await chmod(child, fileMode);
    }
  }
}

/**
 * Opens a job's folder to its uid alone, before its first process: the folder itself can be
 * entered, not listed or written; inputs are root's, readable through the job's group; outputs and
 * the work folder are the job's. The runner (root) still reads and removes everything.
 */
export async function openFolderToUid(root: string, uid: number): Promise<void> {
  await chown(root, 0, uid);
  await chmod(root, 0o710);
  await chownTree(join(root, "in"), 0, uid, 0o750, 0o640);
  await chownTree(join(root, "out"), uid, uid, 0o700, 0o600);
  await chownTree(join(root, "work"), uid, uid, 0o700, 0o600);
}

/**
 * World-writable folders whose use the seccomp launcher denies anyway (bin/no-network-exec.py:
 * mq_open), so one the runner cannot close leaves the jobs nothing: a rootless or user-namespace-
 * remapped host mounts /dev/mqueue as its real root, and chmod there is EPERM.
 */
export const CLOSED_BY_SECCOMP = ["/dev/mqueue"];

/**
 * Closes the folders anyone may write (in a container only: it changes the machine it runs on);
 * returns those it could not close that the seccomp filter does not cover either.
 */
export function closeWorldWritableDirs(workDir: string): string[] {
  const open: string[] = [];
  for (const dir of WORLD_WRITABLE_DIRS) {
    if (!existsSync(dir)) continue;
    try {
      chmodSync(dir, 0o700);
    } catch (err) {
      if (!CLOSED_BY_SECCOMP.includes(dir)) open.push(`${dir} (${(err as NodeJS.ErrnoException).code})`);
    }
  }
  chmodSync(workDir, 0o711);
  return open;
}

/** Whether uid isolation can run here: root, setpriv, and a seccomp filter that really denies a socket. */
export function uidIsolationWorks(): { ok: boolean; reason: string | null } {
  if (process.getuid?.() !== 0)
    return { ok: false, reason: "the runner is not root, so it cannot run jobs as uids of their own" };
  for (const bin of [SETPRIV, PYTHON, NO_NETWORK_EXEC])
    if (!existsSync(bin)) return { ok: false, reason: `${bin} is missing` };
  const range = runnerUidRange();
  if (!range)
    return {
      ok: false,
      reason: "this user namespace maps too few ids to give each job a uid of its own (/proc/self/uid_map)",
    };
  const probe = spawnSync(
    "/usr/bin/prlimit",
    [
      "--nproc=64",
      "--",
      SETPRIV,
      `--reuid=${range.first}`,
      `--regid=${range.first}`,
      "--clear-groups",
      "--no-new-privs",
      "--inh-caps=-all",
      "--bounding-set=-all",
      "--",
      PYTHON,
      "-I",
      NO_NETWORK_EXEC,
      PYTHON,
      "-I",
      "-c",
      "import os, socket\ntry:\n socket.socket()\nexcept PermissionError:\n print('denied', os.getuid())",
    ],
    { env: {}, encoding: "utf8", timeout: 10_000 },
  );
  if (probe.error) return { ok: false, reason: `the uid isolation could not be run: ${probe.error.message}` };
  if (probe.stdout.trim() !== `denied ${range.first}`)
    return {
      ok: false,
      reason: `the uid isolation did not hold (seccomp unavailable?): ${(probe.stderr || probe.stdout).trim().slice(0, 300)}`,
    };
  return { ok: true, reason: null };
}
