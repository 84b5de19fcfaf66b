/** The only environment ffmpeg sees: nothing inherited from the runner. */
export function childEnvironment(jobDir: string): Record<string, string> {
  return { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: jobDir, LANG: "C.UTF-8" };
}

/** Lines ffmpeg prints after the real cause: they say that it failed, not why. */
const GENERIC_FAILURE_LINES = [
  /^Conversion failed!?$/i,
  /^Error reinitializing filters!?$/i,
  /^Failed to inject frame into filter network/i,
  /^Error while (processing|decoding|filtering|opening)/i,
  /^Error marking filters as finished/i,
  /^Cannot determine format of input stream/i,
  /^Nothing was written into output file/i,
  /^Exiting normally/i,
  /^To ignore this, add a trailing/i,
  // What ffmpeg prints once an output cannot start: the cause is the line before.
  /^Error initializing output stream/i,
  /^Could not write header for output file/i,
  /^Error opening output files?/i,
  /^Last message repeated/i,
  // The statistics line ("muxing overhead: unknown") says nothing about a failure.
  /muxing overhead/i,
];
const ERROR_HINT =
  /error|invalid|no such|unknown|unrecognized|not found|matches no|cannot|could not|unable|failed|does not|not supported|not divisible|exceeds|too (large|many|small)|experimental|incompatible|is empty/i;

/**
 * The stderr line that explains a failure, for a one-line error message: the last specific error
 * line, skipping the generic ones ffmpeg prints after the cause; else the last line with text.
 * Searching from the end keeps stream metadata (which may contain any word) out of it.
 */
export function explainFailure(stderr: string): string | null {
  const lines = stderr
    .split(/\r?\n/)
    .map((l) => l.replace(/^\[[^\]]*@ 0x[0-9a-f]+\]\s*/, "").trim())
    .filter((l) => l && !l.startsWith("[earlier output dropped]"));
  const specific = lines.findLast((l) => ERROR_HINT.test(l) && !GENERIC_FAILURE_LINES.some((g) => g.test(l)));
  const chosen = specific ?? lines[lines.length - 1];
  return chosen ? chosen.slice(0, 500) : null;
}
