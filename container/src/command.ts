/**
 * The argv the runner actually executes: the client's resolved arguments plus the service's own
 * options. ffprobe rejects -nostdin and has no -progress, so it gets only -hide_banner.
 */
export function buildArgv(binary: "ffmpeg" | "ffprobe", resolvedArgs: string[]): string[] {
  if (binary === "ffprobe") return ["-hide_banner", ...resolvedArgs];
  return ["-hide_banner", "-nostdin", "-y", "-nostats", "-progress", "pipe:3", ...resolvedArgs];
}

/** The only environment ffmpeg sees: nothing inherited from the runner. */
export function childEnvironment(jobDir: string): Record<string, string> {
  return { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: jobDir, LANG: "C.UTF-8" };
}

/** The last stderr line that says something, for a one-line error message. */
export function lastMeaningfulLine(stderr: string): string | null {
  const lines = stderr.split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !l.startsWith("[earlier output dropped]"));
  return lines.length ? lines[lines.length - 1].slice(0, 500) : null;
}
