import { constants } from "node:fs";
import { open, readdir, type FileHandle } from "node:fs/promises";
import { join } from "node:path";

/**
 * Opens what a job wrote without following links. The job's processes own its `out/` folder's
 * contents and may replace any output, or a directory output's folder, with a link to a file the
 * runner can read and the job cannot (/etc/shadow, another job's input): the runner must read exactly
 * the file the job made, and read it through one descriptor (size, hash, upload body), so a swap after
 * the check changes nothing.
 *
 * Every open is relative to a directory already held open (`/proc/self/fd/N/name`: the kernel resolves
 * the magic link to that very directory, then the one name in it, as openat(2) would), with
 * O_NOFOLLOW (a link as the last component fails ELOOP) and O_NONBLOCK (a FIFO planted in an output's
 * place does not hang the open). The first directory, `out/`, is the runner's own: the job cannot
 * replace it (under bubblewrap it is a mount point in the sandbox, under the uid fallback its parent
 * is root's). Then fstat on the descriptor: a regular file (or directory), owned by the job.
 */
export class OutputRefused extends Error {}

export type OpenedDir = { handle: FileHandle; at: string };
export type OpenedFile = { handle: FileHandle; size: number };

const FILE_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const DIR_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_DIRECTORY;

/**
 * Who owns what a job writes: its own uid under the uid fallback; under bubblewrap the sandbox's
 * nobody maps back to the runner's own uid (so the check adds nothing there, and the directory walk
 * carries it: nothing outside the job folder is visible to the job to link to by name).
 */
export function jobOwner(jobUid: number | null): number {
  return jobUid ?? process.geteuid?.() ?? 0;
}

/** The runner's own folder (a job's `out/`), held open so that names inside it are looked up there. */
export async function openTrustedDir(path: string): Promise<OpenedDir> {
  const handle = await open(path, DIR_FLAGS);
  return { handle, at: procPath(handle, path) };
}

/** A directory output's folder inside `dir`: a real directory of the job's, never a link. */
export async function openDirIn(dir: OpenedDir, name: string, owner: number): Promise<OpenedDir> {
  const handle = await openChecked(dir, name, DIR_FLAGS, owner, (s) => s.isDirectory(), "a directory");
  return { handle, at: procPath(handle, join(dir.at, name)) };
}

/** A file of the job's inside `dir`: a regular file it owns, never a link; its size read from the descriptor. */
export async function openFileIn(dir: OpenedDir, name: string, owner: number): Promise<OpenedFile> {
  const handle = await openChecked(dir, name, FILE_FLAGS, owner, (s) => s.isFile(), "a regular file");
  return { handle, size: (await handle.stat()).size };
}

/** The names in a held-open directory (read through its descriptor, not its path): its regular files and its links. */
export async function listFiles(dir: OpenedDir): Promise<{ files: string[]; links: string[] }> {
  const entries = await readdir(dir.at, { withFileTypes: true });
  return {
    files: entries.filter((e) => e.isFile()).map((e) => e.name),
    links: entries.filter((e) => e.isSymbolicLink()).map((e) => e.name),
  };
}

async function openChecked(
  dir: OpenedDir,
  name: string,
  flags: number,
  owner: number,
  kind: (s: import("node:fs").Stats) => boolean,
  what: string,
): Promise<FileHandle> {
  if (name.includes("/") || name === "." || name === "..") throw new OutputRefused(`is not a plain name`);
  let handle: FileHandle;
  try {
    handle = await open(join(dir.at, name), flags);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ELOOP" || code === "ENOTDIR")
      throw new OutputRefused(`is a symbolic link or not ${what}: links are never followed`);
    throw err;
  }
  const s = await handle.stat();
  const refusal = !kind(s) ? `is not ${what}` : s.uid !== owner ? "is not the job's own file" : null;
  if (refusal) {
    await handle.close();
    throw new OutputRefused(refusal);
  }
  return handle;
}

/**
 * The path through which names inside an open directory resolve in that directory. Without /proc
 * (macOS: a development host, where no sandbox runs and the job could read anything itself) the
 * plain path, checked already by O_NOFOLLOW on its last component.
 */
function procPath(handle: FileHandle, fallback: string): string {
  return process.platform === "linux" ? `/proc/self/fd/${handle.fd}` : fallback;
}
