import { renameSync, symlinkSync } from "node:fs";

/** Replaces `path` by a link to `target` in one rename, as a hostile process would. */
export function swapForLink(path: string, target: string): void {
  symlinkSync(target, `${path}.tmp`);
  renameSync(`${path}.tmp`, path);
}
