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
  };
}
