import { execFile } from "node:child_process";
import { inputSafetyOptions } from "../../src/jobs/runner-request/command-line.ts";
import type { OutputMetadata } from "../../src/jobs/views/output-metadata.ts";
import type { JobFolder } from "./job-folder.ts";
import { isolatedCommand } from "./isolation.ts";
import type { Limits } from "./sandbox.ts";
import type { RunnerSettings } from "./settings.ts";

export const PROBE_TIMEOUT_MS = 30_000;
export const PROBE_MAX_STDOUT_BYTES = 8 * 1024 * 1024;
export const PROBE_LIMITS: Omit<Limits, "addressSpaceBytes"> = {
  cpuSeconds: 30,
  fileSizeBytes: 1024 * 1024,
  openFiles: 256,
  processes: 64,
};

type ProbeStream = Record<string, unknown> & { codec_type?: string };
export type ProbeJson = { format?: Record<string, unknown>; streams?: ProbeStream[] };

/** Probes a job's file (by name: an input or an output) and returns ffprobe's JSON, or null. */
export type Prober = (name: string, file?: string) => Promise<ProbeJson | null>;

/**
 * The runner's own ffprobe runs, on files the job's command made or the client sent: in the job's
 * sandbox and under the same input options as the command itself (files only, media demuxers only,
 * bounded pixels), so a hostile file is no more dangerous to the runner here than in the job.
 */
export function createProber(folder: JobFolder, settings: RunnerSettings): Prober {
  return async (name, file) => {
    const path = folder.visiblePath(name, file);
    if (!path) return null;
    return parseProbeJson(await sandboxedFfprobe(folder, settings, PROBE_JSON_OPTIONS, path));
  };
}

/** What the runner asks ffprobe for: the container and its streams, as JSON. */
export const PROBE_JSON_OPTIONS = ["-print_format", "json", "-show_format", "-show_streams"];

export function parseProbeJson(stdout: string | null): ProbeJson | null {
  try {
    return stdout === null ? null : (JSON.parse(stdout) as ProbeJson);
  } catch {
    return null;
  }
}

/**
 * One ffprobe of a job's file (`path` as the sandbox sees it) with `options` before it, in the job's
 * sandbox under the command's own input options; its stdout, or null when it failed.
 */
export function sandboxedFfprobe(
  folder: JobFolder,
  settings: RunnerSettings,
  options: string[],
  path: string,
): Promise<string | null> {
  const argv = ["-v", "error", ...inputSafetyOptions(path), ...options, path];
  const limits = { ...PROBE_LIMITS, addressSpaceBytes: settings.maxMemoryBytes };
  const command = isolatedCommand(settings, folder, "ffprobe", argv, limits);
  return new Promise((resolve) => {
    execFile(
      command.file,
      command.args,
      { env: command.env, timeout: PROBE_TIMEOUT_MS, maxBuffer: PROBE_MAX_STDOUT_BYTES },
      (err, stdout) => resolve(err ? null : stdout),
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
export function summarizeProbe(probe: ProbeJson | null, size: number): OutputMetadata | null {
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
        ? {
            width: num(s.width),
            height: num(s.height),
            frameRate: frameRate(s.avg_frame_rate) ?? frameRate(s.r_frame_rate),
          }
        : {}),
      ...(s.codec_type === "audio" ? { sampleRate: num(s.sample_rate), channels: num(s.channels) } : {}),
    })),
  };
}

/** The longest input duration, so progress can be a percentage. */
export async function longestDurationSeconds(probe: Prober, inputNames: string[]): Promise<number | null> {
  const durations = await Promise.all(inputNames.map(async (n) => num((await probe(n))?.format?.duration)));
  const known = durations.filter((d): d is number => d !== null && d > 0);
  return known.length ? Math.max(...known) : null;
}
