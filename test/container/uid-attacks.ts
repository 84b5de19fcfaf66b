// Runs INSIDE a runner container whose runner chose the uid fallback (copied to /app/test/container by the container
// suite, run as the container's root like the runner): the sandbox attacks of
// test/runner/attacks.test.ts ("the sandbox itself", as if the policy had a hole), against the uid
// isolation's own command line, in job folders the runner's own code prepares. Prints one JSON
// object: what each attack got.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { allocateUid, openFolderToUid, uidIsolatedCommand, uidIsolatedEnv } from "../../container/src/uid-sandbox.ts";
import { killUidProcesses } from "../../container/src/uid-reaper.ts";

const limits = {
  cpuSeconds: 30,
  addressSpaceBytes: 4 * 1024 ** 3,
  fileSizeBytes: 50_000_000,
  openFiles: 256,
  processes: 512,
};

async function jobFolder(name: string, secret: string): Promise<{ root: string; uid: number }> {
  const root = join("/work", name);
  for (const dir of ["in", "out", "work"]) mkdirSync(join(root, dir), { recursive: true });
  writeFileSync(join(root, "in", "secret.txt"), secret);
  const uid = allocateUid();
  await openFolderToUid(root, uid);
  return { root, uid };
}

function run(
  job: { root: string; uid: number },
  binary: string,
  argv: string[],
): { status: number | null; out: string; err: string } {
  const cmd = uidIsolatedCommand(binary, argv, job.uid, limits);
  try {
    const out = execFileSync(cmd.file, cmd.args, {
      cwd: join(job.root, "work"),
      env: uidIsolatedEnv(job.root),
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 20_000,
    });
    return { status: 0, out, err: "" };
  } catch (e) {
    const err = e as { status: number | null; stdout?: string; stderr?: string };
    return { status: err.status, out: err.stdout ?? "", err: (err.stderr ?? "").slice(-600) };
  }
}

const ffmpeg = (job: { root: string; uid: number }, ...argv: string[]) =>
  run(job, "ffmpeg", ["-hide_banner", "-nostdin", "-y", ...argv]);
const other = await jobFolder("uid-attack-other", "other job's secret");
const job = await jobFolder("uid-attack-job", "own input");
const marker = `escape-${process.pid}`;
const copy = (from: string, to: string) =>
  ffmpeg(job, "-f", "data", "-i", from, "-map", "0", "-c", "copy", "-f", "data", to);

const result = {
  uids: [job.uid, other.uid],
  id: run(job, "id", []).out.trim(),
  network: [`http://127.0.0.1:8080/healthz`, `tcp://127.0.0.1:8080`, `http://11.0.0.1/x.mp4`].map((url) =>
    ffmpeg(job, "-i", url, "-t", "1", "-f", "null", "-"),
  ),
  runnerEnvironment: copy("/proc/1/environ", join(job.root, "out", "environ")),
  otherJobsInput: copy(join(other.root, "in", "secret.txt"), join(job.root, "out", "stolen")),
  ownInput: copy(join(job.root, "in", "secret.txt"), join(job.root, "out", "own")),
  writes: Object.fromEntries(
    ["/tmp", "/var/tmp", "/dev/shm", "/usr", "/work", join(job.root, "in"), other.root].map((dir) => {
      copy(join(job.root, "in", "secret.txt"), join(dir, `${marker}.txt`));
      return [dir, existsSync(join(dir, `${marker}.txt`))];
    }),
  ),
  ownOutput: existsSync(join(job.root, "out", "own")),
  // POSIX message queues (/dev/mqueue, which a remapped host does not let the runner close): denied by seccomp.
  messageQueue: run(job, "python3", [
    "-I",
    "-c",
    "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\nfd = libc.mq_open(b'/ffjobs-attack', os.O_CREAT | os.O_RDWR, 0o666, None)\nprint(fd, ctypes.get_errno())",
  ]).out.trim(),
  workDirWrite:
    ffmpeg(job, "-f", "lavfi", "-i", "anullsrc", "-t", "0.1", `${marker}.wav`).status === 0 &&
    existsSync(join(job.root, "work", `${marker}.wav`)),
};
/** Every process of `uid` in /proc, zombies too ("pid state"). */
const processesOf = (uid: number) =>
  readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .flatMap((p) => {
      const status = (() => {
        try {
          return readFileSync(`/proc/${p}/status`, "utf8");
        } catch {
          return "";
        }
      })();
      return /^Uid:\s+(\d+)/m.exec(status)?.[1] === String(uid) ? [`${p} ${/^State:\s+(\S)/m.exec(status)?.[1]}`] : [];
    });
// A process of the job that left its session (setsid, then a double fork), as code run inside ffmpeg could:
// the runner's reaper kills it by uid, and PID 1 (tini, the image's entrypoint) reaps it: nothing is left, not even a zombie.
const leaveSession =
  "import os, time\nif os.fork() == 0:\n os.setsid()\n if os.fork() == 0:\n  time.sleep(300)\n os._exit(0)\nos._exit(0)";
// stdio ignored: the sleeper would hold a pipe open, and spawnSync wait for it.
spawnSync(
  "/usr/bin/setpriv",
  [`--reuid=${job.uid}`, `--regid=${job.uid}`, "--clear-groups", "--", "/usr/bin/python3", "-I", "-c", leaveSession],
  { stdio: "ignore" },
);
const escaped = processesOf(job.uid);
await killUidProcesses(job.uid);
await new Promise((r) => setTimeout(r, 500));
const afterJobEnd = { escaped, left: processesOf(job.uid) };
console.log(JSON.stringify({ ...result, afterJobEnd }));
