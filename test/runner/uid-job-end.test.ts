import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createJobFolder, openJobFolder, removeJobFolder, type JobFolder } from "../../container/src/job-folder.ts";
import { runCommand } from "../../container/src/run-command.ts";
import { readSettings } from "../../container/src/settings.ts";
import { liveProcessesOf } from "../../container/src/uid-reaper.ts";
import { jobRequest } from "./runner-api.ts";

/**
 * The uid fallback has no pid namespace: a job's process that calls setsid leaves the process group
 * the runner kills. Every process of the job's uid must still be gone when its command, and the job,
 * end. The test plays the escaped process (a setsid'd, double-forked sleeper running as the job's
 * uid, as code running inside ffmpeg would start) and runs the job's steps through the runner's own
 * code with the uid isolation chosen (not through a runner process: choosing the fallback closes the
 * machine's /tmp, which only the runner's image may do). Needs root, as the fallback does.
 */
const asRoot = process.getuid?.() === 0 && existsSync("/usr/bin/setpriv") && existsSync("/usr/bin/python3");
const workDir = mkdtempSync(join(tmpdir(), "ffjobs-uid-end-"));
const settings = {
  ...readSettings({ RUNNER_WORK_DIR: workDir, RUNNER_CONTROL_SECRET: "x".repeat(32) }),
  isolation: "uid" as const,
};
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** Starts, as the job's uid, a sleeper in a session of its own whose parent has already exited (setsid, then a double fork); its pid. */
async function plantEscapee(uid: number): Promise<number> {
  const script =
    "import os, sys, time\nif os.fork() == 0:\n os.setsid()\n if os.fork() == 0:\n  print(os.getpid(), flush=True)\n  os.close(1)\n  time.sleep(300)\n os._exit(0)\nos._exit(0)";
  const planter = spawn(
    "/usr/bin/setpriv",
    [`--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", "--", "/usr/bin/python3", "-I", "-c", script],
    { stdio: ["ignore", "pipe", "ignore"] },
  );
  let out = "";
  planter.stdout.on("data", (c: Buffer) => (out += c.toString()));
  await new Promise((r) => planter.on("close", r));
  const pid = Number(out.trim());
  expect(await liveProcessesOf(uid)).toContain(pid);
  return pid;
}

async function uidJob(): Promise<JobFolder> {
  const req = jobRequest({
    args: ["-filter_complex", "sine=d=0.2", "{{out}}"],
    outputs: [{ name: "out", fileName: "o.wav", contentType: "audio/wav", uploadUrl: "http://127.0.0.1:9/x" }],
  });
  const folder = await createJobFolder(workDir, req, "uid");
  await openJobFolder(folder);
  return folder;
}

describe.skipIf(!asRoot)("the uid fallback ends every process of a job", () => {
  it("a setsid'd, double-forked process of the job's uid dies when the job's command ends", async () => {
    const folder = await uidJob();
    await plantEscapee(folder.uid!);
    const req = jobRequest({ args: ["-filter_complex", "sine=d=0.2", "{{out}}"] });
    // The command itself may fail where python3-seccomp is missing (outside the runner's image): its end is what counts.
    await runCommand(
      { binary: "ffmpeg", args: req.args },
      {
        req,
        folder,
        settings,
        deadline: Date.now() + 20_000,
        durationSeconds: () => null,
        onProgress: () => {},
        onCancelable: () => {},
      },
    ).catch(() => null);
    expect(await liveProcessesOf(folder.uid!)).toEqual([]);
    await removeJobFolder(folder);
  });

  it("one left by anything else of the job (a probe) dies when the job's folder is removed, before its uid is given out again", async () => {
    const folder = await uidJob();
    const escapee = await plantEscapee(folder.uid!);
    await removeJobFolder(folder);
    // Killed, not merely orphaned: a zombie at most (its new parent reaps it), never a live process.
    expect(await liveProcessesOf(folder.uid!)).not.toContain(escapee);
    expect(existsSync(folder.root)).toBe(false);
  });
});
