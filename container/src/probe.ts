import { execFile } from "node:child_process";

const PROBE_TIMEOUT_MS = 30_000;

type ProbeStream = Record<string, unknown> & { codec_type?: string };
type ProbeJson = { format?: Record<string, unknown>; streams?: ProbeStream[] };

export function ffprobeJson(path: string, env: Record<string, string>): Promise<ProbeJson | null> {
  return new Promise((resolve) => {
    execFile(
      "ffprobe",
      ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", path],
      { env, timeout: PROBE_TIMEOUT_MS, maxBuffer: 8 * 1024 * 1024 },
      (err, stdout) => {
        if (err) return resolve(null);
        try {
          resolve(JSON.parse(stdout) as ProbeJson);
        } catch {
          resolve(null);
        }
      },
    );
  });
}

const num = (v: unknown): number | null => {
  const n = typeof v === "number" ? v : Number(v);
  return v === undefined || v === null || v === "N/A" || !Number.isFinite(n) ? null : n;
};

function frameRate(v: unknown): number | null {
  const m = /^(\d+)\/(\d+)$/.exec(String(v ?? ""));
  if (!m || Number(m[2]) === 0) return null;
  return Math.round((Number(m[1]) / Number(m[2])) * 1000) / 1000;
}

/** A compact summary of a stored output: what a client needs to show or check it. */
export function summarizeProbe(probe: ProbeJson | null, size: number) {
  if (!probe?.format) return null;
  const f = probe.format;
  return {
    format: typeof f.format_name === "string" ? f.format_name : null,
    durationSeconds: num(f.duration),
    size,
    bitRate: num(f.bit_rate),
    streams: (probe.streams ?? []).map((s) => ({
      index: num(s.index),
      type: s.codec_type ?? null,
      codec: typeof s.codec_name === "string" ? s.codec_name : null,
      ...(s.codec_type === "video"
        ? { width: num(s.width), height: num(s.height), frameRate: frameRate(s.avg_frame_rate) ?? frameRate(s.r_frame_rate) }
        : {}),
      ...(s.codec_type === "audio" ? { sampleRate: num(s.sample_rate), channels: num(s.channels) } : {}),
    })),
  };
}

/** The longest input duration, so progress can be a percentage. */
export async function longestDurationSeconds(paths: string[], env: Record<string, string>): Promise<number | null> {
  const durations = await Promise.all(paths.map(async (p) => num((await ffprobeJson(p, env))?.format?.duration)));
  const known = durations.filter((d): d is number => d !== null && d > 0);
  return known.length ? Math.max(...known) : null;
}
