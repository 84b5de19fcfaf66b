import { mkdir, readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { safeExtension } from "../../src/jobs/placeholders.ts";
import type { RunnerJobRequest } from "../../src/runner/runner-protocol.ts";

/**
 * A job's folder: `in/` (fetched inputs), `out/` (declared outputs), `work/` (scratch files and
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
};

export async function createJobFolder(workDir: string, req: RunnerJobRequest, sandboxed: boolean): Promise<JobFolder> {
  const root = join(workDir, req.jobId);
  await mkdir(join(root, "in"), { recursive: true });
  await mkdir(join(root, "out"), { recursive: true });
  await mkdir(join(root, "work"), { recursive: true });
  const relative = new Map<string, string>();
  for (const input of req.inputs) {
    relative.set(input.name, `in/${input.name}.${safeExtension(input.trusted ? input.fileName : new URL(input.url).pathname)}`);
  }
  for (const file of req.scratch ?? []) {
    const ext = safeExtension(file.fileName, "");
    relative.set(file.name, `work/${ext ? `${file.name}.${ext}` : file.name}`);
  }
  const directories = new Map<string, string>();
  for (const output of req.outputs) {
    if (output.kind === "directory") {
      // Its own folder: the command writes every file of the output there, under the names it chooses.
      await mkdir(join(root, "out", output.name));
      relative.set(output.name, `out/${output.name}`);
      directories.set(output.name, output.fileName);
      continue;
    }
    const ext = safeExtension(output.fileName, "");
    relative.set(output.name, `out/${ext ? `${output.name}.${ext}` : output.name}`);
  }
  const visibleRoot = sandboxed ? "/job" : root;
  return {
    root,
    hostPath: (name) => (relative.has(name) ? join(root, relative.get(name)!) : undefined),
    visiblePath: (name, file) => {
      if (!relative.has(name) || (file !== undefined && !directories.has(name))) return undefined;
      const inside = directories.has(name) ? `/${file ?? directories.get(name)}` : "";
      return `${visibleRoot}/${relative.get(name)}${inside}`;
    },
    scrub: (text) => text.split(root).join("/job"),
  };
}

export async function removeJobFolder(folder: JobFolder): Promise<void> {
  await rm(folder.root, { recursive: true, force: true });
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

/** Total bytes under a folder (the quota watcher's reading). */
export async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => [])) {
    if (entry.isFile()) total += (await stat(join(entry.parentPath, entry.name)).catch(() => ({ size: 0 }))).size;
  }
  return total;
}
