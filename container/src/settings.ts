import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";

/** Runner settings, read once from its environment at start. */
export type RunnerSettings = {
  host: string;
  port: number;
  concurrency: number;
  workDir: string;
  maxInputBytes: number;
  maxStdoutBytes: number;
  maxStderrBytes: number;
  /** How long a finished job's report waits for the coordinator to collect it. */
  reportRetentionMs: number;
  /** "on" (default): every job runs in bubblewrap, and no job runs if it cannot start. */
  sandbox: "on" | "off";
  bwrapPath: string;
  /** Why the sandbox cannot start on this host (probed once at start), or null when it works. */
  sandboxProblem: string | null;
  maxOutputBytes: number;
  jobDiskQuotaBytes: number;
  maxMemoryBytes: number;
};

function positiveInt(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got "${value}"`);
  return n;
}

export function readSettings(env: NodeJS.ProcessEnv): RunnerSettings {
  return {
    host: env.RUNNER_HOST || "127.0.0.1",
    port: env.RUNNER_PORT === "0" ? 0 : positiveInt(env.RUNNER_PORT, 8080, "RUNNER_PORT"),
    concurrency: positiveInt(env.RUNNER_CONCURRENCY, availableParallelism(), "RUNNER_CONCURRENCY"),
    workDir: env.RUNNER_WORK_DIR || join(tmpdir(), "ffjobs-runner"),
    maxInputBytes: positiveInt(env.RUNNER_MAX_INPUT_BYTES, 2 * 1024 ** 3, "RUNNER_MAX_INPUT_BYTES"),
    maxStdoutBytes: 256 * 1024,
    maxStderrBytes: 16 * 1024,
    reportRetentionMs: 60 * 60_000,
    sandbox: sandboxSetting(env.RUNNER_SANDBOX),
    bwrapPath: env.RUNNER_BWRAP_PATH || "/usr/bin/bwrap",
    sandboxProblem: null,
    maxOutputBytes: positiveInt(env.RUNNER_MAX_OUTPUT_BYTES, 2 * 1024 ** 3, "RUNNER_MAX_OUTPUT_BYTES"),
    jobDiskQuotaBytes: positiveInt(env.RUNNER_JOB_DISK_BYTES, 4 * 1024 ** 3, "RUNNER_JOB_DISK_BYTES"),
    maxMemoryBytes: positiveInt(env.RUNNER_MAX_MEMORY_BYTES, 4 * 1024 ** 3, "RUNNER_MAX_MEMORY_BYTES"),
  };
}

function sandboxSetting(value: string | undefined): "on" | "off" {
  if (value === undefined || value === "" || value === "on") return "on";
  if (value === "off") return "off";
  throw new Error(`RUNNER_SANDBOX must be "on" or "off", got "${value}"`);
}
