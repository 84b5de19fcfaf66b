import { spawn } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";

/**
 * Ends every process of a job under the uid fallback (uid-sandbox.ts). There is no pid namespace
 * there, so killing the command's process group is not enough: a process that calls setsid (or
 * double-forks into a session of its own) leaves the group and would live on into later jobs of a
 * warm container. What it cannot leave is its uid, which is the job's alone (never shared by two
 * running jobs, no capabilities, no-new-privileges: no way to change it). So the runner kills by uid:
 * a helper drops to that uid and calls kill(-1, SIGKILL), which signals every process the uid may
 * signal — exactly the job's — in one pass under the kernel's task-list lock, so no fork escapes it;
 * then /proc is read to confirm, and anything left (a process caught mid-exec) is killed by pid.
 * Decision: this rather than a cgroup (Cloudflare's containers give no writable cgroup
 * tree, and Docker's default gives none either) or a subreaper (a SIGKILL of the runner's own
 * helper on a timeout would lose it); it needs only what the fallback already needs: root and Python.
 */
const PYTHON = "/usr/bin/python3";
const KILL_ALL_AS_ME = "import os, signal\ntry:\n os.kill(-1, signal.SIGKILL)\nexcept ProcessLookupError:\n pass";
const MAX_PASSES = 5;
const HELPER_TIMEOUT_MS = 10_000;

export async function killUidProcesses(uid: number): Promise<void> {
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    await killAllAs(uid);
    const left = await liveProcessesOf(uid);
    if (left.length === 0) return;
    for (const pid of left) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone already
      }
    }
  }
  console.error(
    `uid ${uid}: processes still alive after ${MAX_PASSES} passes: ${(await liveProcessesOf(uid)).join(", ")}`,
  );
}

/** kill(-1, SIGKILL) as `uid` (Node sets the helper's uid, gid and no supplementary groups before it runs). */
function killAllAs(uid: number): Promise<void> {
  return new Promise((resolve) => {
    const helper = spawn(PYTHON, ["-I", "-c", KILL_ALL_AS_ME], {
      uid,
      gid: uid,
      env: {},
      stdio: "ignore",
      timeout: HELPER_TIMEOUT_MS,
    });
    helper.on("error", (err) => {
      console.error(`uid ${uid}: the kill helper did not start: ${err.message}`);
      resolve();
    });
    helper.on("close", () => resolve());
  });
}

/** Pids whose real uid is `uid`, zombies aside (they are dead already; their parent reaps them). */
export async function liveProcessesOf(uid: number): Promise<number[]> {
  const pids = (await readdir("/proc").catch(() => [] as string[])).filter((n) => /^\d+$/.test(n));
  const live = await Promise.all(
    pids.map(async (pid) => {
      const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
      const realUid = /^Uid:\s+(\d+)/m.exec(status)?.[1];
      const state = /^State:\s+(\S)/m.exec(status)?.[1];
      return realUid === String(uid) && state !== "Z" && state !== "X" ? Number(pid) : null;
    }),
  );
  return live.filter((p): p is number => p !== null);
}
