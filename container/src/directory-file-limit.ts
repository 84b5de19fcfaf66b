import type { RunnerOutput } from "../../src/runner/runner-protocol.ts";

/** When the coordinator names no limit (MAX_DIRECTORY_FILES is its setting). */
const DEFAULT_MAX_DIRECTORY_FILES = 1000;

/**
 * The most files a directory output may hold: checked while the command writes (run-command.ts) and
 * again on what it left (store-directory.ts), so both must read the same number.
 */
export function directoryFileLimit(output: Pick<RunnerOutput, "maxFiles">): number {
  return output.maxFiles ?? DEFAULT_MAX_DIRECTORY_FILES;
}
