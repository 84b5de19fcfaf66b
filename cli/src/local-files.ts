import { randomBytes } from "node:crypto";
import { createWriteStream, existsSync, lstatSync } from "node:fs";
import { open, rename, rm } from "node:fs/promises";
import { isAbsolute, join, resolve, sep } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { DIRECTORY_FILE_PATTERN } from "../../src/jobs/request/placeholders.ts";

const WINDOWS_DEVICE = /^(con|prn|aux|nul|com\d|lpt\d)(\..*)?$/i;

/**
 * Where the CLI may write. Every name the server sends (a directory output's file names, a preset's
 * default output names) is untrusted: it must be one plain file name, and lands only in the folder
 * the user named (or the working directory); `..`, separators, absolute paths, control characters,
 * dot files (`.bashrc`), and names Windows reads as devices or streams are refused with an error naming the file.
 */
export class UnsafeNameError extends Error {}

export function plainFileName(name: string, what: string): string {
  // The names the service itself stores (DIRECTORY_FILE_PATTERN: no leading dot, no spaces, colons or
  // other scripts' look-alikes), and never a name Windows gives to a device.
  const bad = name.length > 255 || isAbsolute(name) || !DIRECTORY_FILE_PATTERN.test(name) || WINDOWS_DEVICE.test(name);
  if (bad)
    throw new UnsafeNameError(
      `ffjobs: refusing ${what} ${JSON.stringify(name)} from the server: not a plain file name`,
    );
  return name;
}

/** `name` (from the server) inside `folder` (the user's), never outside it. */
export function fileInFolder(folder: string, name: string, what: string): string {
  const base = resolve(folder);
  const path = resolve(base, plainFileName(name, what));
  if (!path.startsWith(base + sep))
    throw new UnsafeNameError(`ffjobs: refusing ${what} ${JSON.stringify(name)}: it would land outside ${base}`);
  return path;
}

/** Whether writing `path` would replace something (a file, a link, anything): only `-y` may. */
export function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return existsSync(path);
  }
}

/**
 * Downloads to a fresh temporary name beside the target (created exclusively, so a link planted
 * there is never followed), then renames over the target (a rename replaces a link itself, never
 * what it points to): a failed download leaves no half file.
 */
export async function downloadTo(url: string, path: string, fetchFn: typeof fetch = fetch): Promise<void> {
  const res = await fetchFn(url);
  if (!res.ok || !res.body) throw new Error(`downloading ${path} failed: HTTP ${res.status}`);
  const partial = join(resolve(path, ".."), `.${randomBytes(6).toString("hex")}.ffjobs-partial`);
  const handle = await open(partial, "wx", 0o644);
  try {
    await pipeline(
      Readable.fromWeb(res.body as unknown as import("node:stream/web").ReadableStream),
      createWriteStream("", { fd: handle.fd, autoClose: false }),
    );
    await handle.close();
    await rename(partial, path);
  } catch (err) {
    await handle.close().catch(() => {});
    await rm(partial, { force: true });
    throw err;
  }
}
