/**
 * Seconds in ffmpeg's duration syntax: `[-][HH:]MM:SS[.m...]` or `[-]S+[.m...][s|ms|us]`; null when it
 * is not one (an expression, say), so the caller can refuse it.
 */
export function durationSeconds(text: string): number | null {
  const t = text.trim();
  const clock = /^(?:(\d+):)?(\d{1,2}):(\d{1,2}(?:\.\d+)?)$/.exec(t);
  if (clock) return Number(clock[1] ?? 0) * 3600 + Number(clock[2]) * 60 + Number(clock[3]);
  const plain = /^(\d+(?:\.\d+)?)(s|ms|us)?$/.exec(t);
  if (!plain) return null;
  const scale = { s: 1, ms: 1e-3, us: 1e-6 }[plain[2] ?? "s"]!;
  return Number(plain[1]) * scale;
}
