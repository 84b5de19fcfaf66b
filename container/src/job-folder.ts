import { mkdir, readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { jobLayout, STREAMED_INPUT_ORIGIN, visiblePaths } from "../../src/jobs/runner-request/job-paths.ts";
import type { RunnerJobRequest } from "../../src/runner/runner-protocol.ts";
import type { RunnerSettings } from "./settings.ts";
import { allocateUid, openFolderToUid, releaseUid } from "./uid-sandbox.ts";
import { killUidProcesses } from "./uid-reaper.ts";

/**
 * A job's folder: `in/` (inputs copied whole; streamed ones are read by range, never stored), `out/` (declared outputs), `work/` (scratch files and
 * whatever a command writes to its working directory, such as two-pass logs; kept across the steps
 * of a job, never stored). Inside the sandbox they appear as /job/in, /job/out and /job/work, so
 * ffmpeg (and its error messages) see only those paths.
 */
export type JobFolder = {
  root: string;
  /** Where the runner reads and writes a name's file (a directory output: its folder). */
  hostPath: (name: string) => string | undefined;
  /** The path ffmpeg is given for a name, or for a file inside a directory output. */
  visiblePath: (name: string, file?: string) => string | undefined;
  /** Turns runner paths in text into the paths ffmpeg saw. */
  scrub: (text: string) => string;
  /** The job's own uid under the uid isolation (uid-sandbox.ts), else null. */
  uid: number | null;
  /** The folder of the input server's socket, once it listens, when inputs are streamed (job-inputs.ts). */
  inputSocketDir: string | null;
};

/**
 * `settings.isolation` decides what ffmpeg sees: with namespaces the folder is mounted at /job; the
 * uid isolation mounts nothing, so ffmpeg is given the real paths (errors still read /job) and the
 * job gets a uid of its own.
 */
export async function createJobFolder(
  workDir: string,
  req: Pick<RunnerJobRequest, "jobId" | "inputs" | "outputs" | "scratch">,
  isolation: RunnerSettings["isolation"],
  streamed: ReadonlySet<string> = new Set(),
): Promise<JobFolder> {
  const root = join(workDir, req.jobId);
  await mkdir(join(root, "in"), { recursive: true });
  await mkdir(join(root, "out"), { recursive: true });
  await mkdir(join(root, "work"), { recursive: true });
  const layout = jobLayout(req.inputs, req.outputs, req.scratch ?? []);
  // A directory output's own folder: the command writes every file of the output there.
  for (const name of layout.directories.keys()) await mkdir(join(root, "out", name));
  const visibleRoot = isolation === "namespaces" ? "/job" : root;
  return {
    root,
    hostPath: (name) => (layout.relative.has(name) ? join(root, layout.relative.get(name)!) : undefined),
    visiblePath: visiblePaths(layout, visibleRoot, streamed),
    // Streamed inputs read as URLs on the sandbox's loopback: shown as the paths they stand for.
    scrub: (text) => text.split(root).join("/job").split(`${STREAMED_INPUT_ORIGIN}/`).join("/job/"),
    uid: isolation === "uid" ? allocateUid() : null,
    inputSocketDir: null,
  };
}

/** Before the job's first process: under the uid isolation, the folder becomes its uid's alone. */
export async function openJobFolder(folder: JobFolder): Promise<void> {
  if (folder.uid !== null) await openFolderToUid(folder.root, folder.uid);
}

/**
 * At the job's end: under the uid fallback every process of its uid is killed first (one a probe
 * left, one that escaped its command's process group), so none outlives the job or sees the uid
 * given to another; then the folder goes.
 */
export async function removeJobFolder(folder: JobFolder): Promise<void> {
  if (folder.uid !== null) await killUidProcesses(folder.uid);
  await rm(folder.root, { recursive: true, force: true });
  if (folder.uid !== null) releaseUid(folder.uid);
}

const JOB_FOLDER_NAME = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Removes job folders a previous runner left behind when it died (inputs can be gigabytes): none of
 * their jobs is this runner's. Only job-id folders are touched, whatever else shares the work dir.
 */
export async function removeLeftoverJobFolders(workDir: string): Promise<string[]> {
  const names = (await readdir(workDir).catch(() => [] as string[])).filter((n) => JOB_FOLDER_NAME.test(n));
  await Promise.all(names.map((n) => rm(join(workDir, n), { recursive: true, force: true })));
  return names;
}

/** Files directly in a folder (a directory output's: its files are plain names). */
export async function fileCount(dir: string): Promise<number> {
  return (await readdir(dir).catch(() => [] as string[])).length;
}

/** Total bytes under a folder (the quota watcher's reading). */
export async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => [])) {
    if (entry.isFile()) total += (await stat(join(entry.parentPath, entry.name)).catch(() => ({ size: 0 }))).size;
  }
  return total;
}
