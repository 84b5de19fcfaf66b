import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { CLOUDFLARE_INTERCEPTION_CA_FILE } from "./trust.ts";
import { DEFAULT_MAX_COPIED_INPUT_BYTES, DEFAULT_MAX_OUTPUT_BYTES } from "../../src/jobs/request/limits.ts";
import { MIN_RUNNER_SECRET_LENGTH } from "../../src/runner/runner-secret.ts";
import type { StallWindows } from "./stall-watch.ts";
import type { TransferLimits } from "./transfer-watch.ts";

/** Runner settings, read once from its environment at start. */
export type RunnerSettings = {
  host: string;
  port: number;
  concurrency: number;
  workDir: string;
  /**
   * "stream" (default): ffmpeg reads URL and uploaded inputs by range through the runner while it runs
   * (job-inputs.ts), where the sandbox has a network namespace of its own to carry them (namespaces
   * isolation, Perl for the relay); "copy": every input is downloaded whole first.
   */
  inputs: "stream" | "copy";
  /** Whether inputs are streamed here: `inputs` as this host allows (resolved at start, like `isolation`). */
  streamInputs: boolean;
  /** Largest input read by range (as its origin declares it). */
  maxInputBytes: number;
  /** Largest input copied whole to the disk (copy mode, an origin without ranges, files named inside filter graphs). */
  maxCopiedInputBytes: number;
  /** All of a job's inputs together: at most this many bytes fetched from their origins. */
  maxReadBytes: number;
  /** An origin that sends nothing for this long while ffmpeg waits on it fails the job. */
  originIdleMs: number;
  maxStdoutBytes: number;
  maxStderrBytes: number;
  /** How long a finished job's report waits for the coordinator to collect it. */
  reportRetentionMs: number;
  /**
   * "on" (default): every job runs isolated, in bubblewrap, or where user namespaces are missing in
   * the uid fallback (where enabled); no job runs if neither can start. "namespaces" / "uid": only
   * that one. "off": limits only.
   */
  sandbox: "on" | "namespaces" | "uid" | "off";
  /** What `sandbox` resolved to on this host at start (isolation.ts); null: nothing could start. */
  isolation: "namespaces" | "uid" | "none" | null;
  /** How the chosen isolation works, for logs, /healthz and GET /v1/capabilities. */
  isolationDescription: string;
  /** The uid fallback changes system folders' modes: enabled only in the runner's own image. */
  uidFallback: boolean;
  /** The unprivileged account the runner drops to when it starts as root (the image's `runner`). */
  runnerUser: string | undefined;
  /**
   * On SIGTERM, finish and hand over the jobs it holds before exiting (a container rollout sends
   * SIGTERM and SIGKILL 15 minutes later); otherwise exit at once (local development).
   */
  drainOnSigterm: boolean;
  /** Shared with the coordinator (src/runner/runner-secret.ts): required on every call but /healthz. */
  controlSecret: string;
  bwrapPath: string;
  /** Why the sandbox cannot start on this host (probed once at start), or null when it works. */
  sandboxProblem: string | null;
  maxOutputBytes: number;
  jobDiskQuotaBytes: number;
  maxMemoryBytes: number;
  /** RUNNER_PIN_CPUS ("0,1"): each running job on one CPU of these (cpu-pins.ts); null: not pinned. */
  pinCpus: number[] | null;
  /** When a running ffmpeg counts as stalled and is stopped (stall-watch.ts): idle, and busy without output. */
  stall: StallWindows;
  /** How slow a client's destination may be before a send to it fails (transfer-watch.ts); every send also ends at the job's deadline. */
  destination: TransferLimits;
  /** A CA to trust on top of the public roots (Cloudflare's HTTPS interception in production). */
  extraCaFile: string;
  /**
   * "cloudflare": the runner is in a Cloudflare container, whose every connection goes through the
   * platform's sidecar to the Worker's outbound handler (only ports 80/443; DNS answers say nothing of
   * the destination; HTTPS needs a name for SNI). "direct": it connects itself.
   */
  egress: "direct" | "cloudflare";
};

/**
 * A process that neither writes nor works for a minute is waiting for nothing. Work without output
 * gets ten minutes: decoding an hour of 4K up to a late `-ss`, or holding a long clip for `reverse`.
 */
const DEFAULT_STALL_IDLE_SECONDS = 60;
const DEFAULT_STALL_BUSY_SECONDS = 600;
/**
 * A destination that takes and says nothing for 30 s, or takes the body slower than 32 KiB/s (256 kbit/s)
 * over 30 s, is not storage a job should wait on: an honest bucket is orders of magnitude faster.
 */
const DEFAULT_DESTINATION_IDLE_SECONDS = 30;
const DEFAULT_DESTINATION_MIN_KIB_PER_SECOND = 32;
const DEFAULT_DESTINATION_WINDOW_SECONDS = 30;

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
    inputs: oneOf(env.RUNNER_INPUTS, ["stream", "copy"], "RUNNER_INPUTS"),
    streamInputs: false,
    maxInputBytes: positiveInt(env.RUNNER_MAX_INPUT_BYTES, 64 * 1024 ** 3, "RUNNER_MAX_INPUT_BYTES"),
    maxCopiedInputBytes: positiveInt(
      env.RUNNER_MAX_COPIED_INPUT_BYTES,
      DEFAULT_MAX_COPIED_INPUT_BYTES,
      "RUNNER_MAX_COPIED_INPUT_BYTES",
    ),
    maxReadBytes: positiveInt(env.RUNNER_MAX_READ_BYTES, 100 * 1024 ** 3, "RUNNER_MAX_READ_BYTES"),
    originIdleMs: positiveInt(env.RUNNER_ORIGIN_IDLE_SECONDS, 30, "RUNNER_ORIGIN_IDLE_SECONDS") * 1000,
    maxStdoutBytes: 256 * 1024,
    maxStderrBytes: 16 * 1024,
    reportRetentionMs: 60 * 60_000,
    sandbox: oneOf(env.RUNNER_SANDBOX, ["on", "namespaces", "uid", "off"], "RUNNER_SANDBOX"),
    isolation: null,
    isolationDescription: "not chosen yet",
    uidFallback: env.RUNNER_UID_FALLBACK === "on",
    runnerUser: env.RUNNER_USER || undefined,
    controlSecret: requiredSecret(env.RUNNER_CONTROL_SECRET),
    drainOnSigterm: env.RUNNER_DRAIN_ON_SIGTERM === "on",
    bwrapPath: env.RUNNER_BWRAP_PATH || "/usr/bin/bwrap",
    sandboxProblem: null,
    maxOutputBytes: positiveInt(env.RUNNER_MAX_OUTPUT_BYTES, DEFAULT_MAX_OUTPUT_BYTES, "RUNNER_MAX_OUTPUT_BYTES"),
    jobDiskQuotaBytes: positiveInt(env.RUNNER_JOB_DISK_BYTES, 4 * 1024 ** 3, "RUNNER_JOB_DISK_BYTES"),
    maxMemoryBytes: positiveInt(env.RUNNER_MAX_MEMORY_BYTES, 4 * 1024 ** 3, "RUNNER_MAX_MEMORY_BYTES"),
    stall: {
      idleMs:
        positiveInt(env.RUNNER_STALL_IDLE_SECONDS, DEFAULT_STALL_IDLE_SECONDS, "RUNNER_STALL_IDLE_SECONDS") * 1000,
      busyMs:
        positiveInt(env.RUNNER_STALL_BUSY_SECONDS, DEFAULT_STALL_BUSY_SECONDS, "RUNNER_STALL_BUSY_SECONDS") * 1000,
    },
    destination: {
      idleMs:
        positiveInt(
          env.RUNNER_DESTINATION_IDLE_SECONDS,
          DEFAULT_DESTINATION_IDLE_SECONDS,
          "RUNNER_DESTINATION_IDLE_SECONDS",
        ) * 1000,
      minBytesPerSecond:
        positiveInt(
          env.RUNNER_DESTINATION_MIN_KIB_PER_SECOND,
          DEFAULT_DESTINATION_MIN_KIB_PER_SECOND,
          "RUNNER_DESTINATION_MIN_KIB_PER_SECOND",
        ) * 1024,
      windowMs:
        positiveInt(
          env.RUNNER_DESTINATION_WINDOW_SECONDS,
          DEFAULT_DESTINATION_WINDOW_SECONDS,
          "RUNNER_DESTINATION_WINDOW_SECONDS",
        ) * 1000,
    },
    extraCaFile: env.RUNNER_EXTRA_CA_FILE || CLOUDFLARE_INTERCEPTION_CA_FILE,
    egress: oneOf(env.RUNNER_EGRESS, ["direct", "cloudflare"], "RUNNER_EGRESS"),
    pinCpus: cpuList(env.RUNNER_PIN_CPUS),
  };
}

function cpuList(value: string | undefined): number[] | null {
  if (!value) return null;
  const cpus = value.split(",").map((v) => v.trim());
  if (!cpus.every((c) => /^\d{1,4}$/.test(c)))
    throw new Error(`RUNNER_PIN_CPUS must be a list of CPU numbers like "0,1", got "${value}"`);
  return [...new Set(cpus.map(Number))];
}

function requiredSecret(value: string | undefined): string {
  if (!value || value.length < MIN_RUNNER_SECRET_LENGTH) {
    throw new Error(
      `RUNNER_CONTROL_SECRET must be set to a random value of at least ${MIN_RUNNER_SECRET_LENGTH} characters, shared with the coordinator`,
    );
  }
  return value;
}

/** The first choice is the default. */
function oneOf<T extends string>(value: string | undefined, choices: readonly T[], name: string): T {
  if (value === undefined || value === "") return choices[0];
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw new Error(`${name} must be ${choices.map((c) => `"${c}"`).join(" or ")}, got "${value}"`);
}
