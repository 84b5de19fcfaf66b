import { z } from "zod";
import type { Env } from "./env.ts";
import { DEFAULT_RETRY_DELAYS_SECONDS, MAX_QUEUE_DELAY_SECONDS } from "./webhooks/retry-schedule.ts";
import { parsePlacement, type ContainerPlacement } from "./runner/container-placement.ts";
import { DEFAULT_DOH_URL } from "./net/doh-resolver.ts";
import { MIN_RUNNER_SECRET_LENGTH } from "./runner/runner-secret.ts";
import { MAX_DIRECTORY_FILES_LIMIT } from "./jobs/store/row-budget.ts";

const intFrom = (fallback: number, min: number, max: number) =>
  z.coerce
    .number()
    .int()
    .min(min)
    .max(max)
    .optional()
    .transform((v) => v ?? fallback);

const hostList = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? "")
      .split(",")
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
  );

const emptyAsUndefined = (v: unknown) => (v === "" ? undefined : v);

const configSchema = z
  .object({
    RUNNER_MODE: z.enum(["container", "local"]).default("container"),
    RUNNER_URL: z.preprocess(emptyAsUndefined, z.url().optional()),
    RUNNER_NOTIFY_BASE_URL: z.preprocess(emptyAsUndefined, z.url().optional()),
    EGRESS_RESOLVER_URL: z.preprocess(emptyAsUndefined, z.url().default(DEFAULT_DOH_URL)),
    CREDITS_PER_SECOND: intFrom(1, 0, 1_000_000),
    JOB_TIMEOUT_SECONDS: intFrom(3600, 1, 7 * 24 * 3600),
    RUNNER_POLL_INTERVAL_MS: intFrom(1000, 50, 60_000),
    STALLED_JOB_SECONDS: intFrom(120, 1, 24 * 3600),
    CONTAINER_IDLE_SECONDS: intFrom(120, 10, 24 * 3600),
    RATE_LIMIT_PER_MINUTE: intFrom(600, 1, 1_000_000),
    READ_RATE_LIMIT_PER_MINUTE: intFrom(6000, 1, 10_000_000),
    PROBE_RATE_LIMIT_PER_MINUTE: intFrom(10, 1, 100_000),
    PROBE_CONCURRENCY_PER_ACCOUNT: intFrom(1, 1, 100),
    CONTAINER_RUNNER_SANDBOX: z.enum(["on", "namespaces", "off"]).default("on"),
    CONTAINER_JOB_DISK_BYTES: intFrom(4 * 1024 ** 3, 1024 ** 2, 1024 ** 4),
    CONTAINER_PLACEMENT: z
      .string()
      .optional()
      .transform((v, ctx) => {
        const placement = parsePlacement(v || "pool");
        if (!placement)
          ctx.addIssue({ code: "custom", message: `"pool", "pool:N" (N from 1 to 9999) or "per-job", got "${v}"` });
        return placement!;
      }),
    MAX_ACTIVE_JOBS_PER_ACCOUNT: intFrom(50, 1, 100_000),
    // A directory output's file list is kept in its row: at most MAX_DIRECTORY_FILES_LIMIT fit (src/jobs/store/row-budget.ts).
    MAX_DIRECTORY_FILES: intFrom(1000, 1, MAX_DIRECTORY_FILES_LIMIT),
    UPLOAD_RETENTION_DAYS: intFrom(7, 1, 3650),
    OUTPUT_RETENTION_DAYS: intFrom(30, 1, 3650),
    ALLOWED_PRIVATE_HOSTS: hostList,
    R2_BUCKET_NAME: z.string().min(1).default("ffjobs-media"),
    WEBHOOK_RETRY_SCHEDULE_SECONDS: z
      .string()
      .optional()
      .transform((v, ctx) => {
        if (!v) return DEFAULT_RETRY_DELAYS_SECONDS;
        const delays = v.split(",").map((d) => Number(d.trim()));
        if (delays.some((d) => !Number.isInteger(d) || d < 0 || d > MAX_QUEUE_DELAY_SECONDS)) {
          ctx.addIssue({
            code: "custom",
            message: `comma-separated whole seconds, each at most ${MAX_QUEUE_DELAY_SECONDS}`,
          });
        }
        return delays;
      }),
    R2_S3_ENDPOINT: z.preprocess(emptyAsUndefined, z.url().optional()),
    R2_ACCESS_KEY_ID: z.preprocess(emptyAsUndefined, z.string().optional()),
    R2_SECRET_ACCESS_KEY: z.preprocess(emptyAsUndefined, z.string().optional()),
    RUNNER_CONTROL_SECRET: z.preprocess(emptyAsUndefined, z.string().min(MIN_RUNNER_SECRET_LENGTH).optional()),
    STORAGE_TOKEN_SECRET: z.preprocess(emptyAsUndefined, z.string().min(32).optional()),
  })
  .refine((c) => c.RUNNER_MODE !== "local" || c.RUNNER_URL, {
    message: "RUNNER_URL is required when RUNNER_MODE is local",
    path: ["RUNNER_URL"],
  })
  .refine((c) => c.RUNNER_MODE !== "local" || c.RUNNER_CONTROL_SECRET, {
    message: "RUNNER_CONTROL_SECRET (shared with the local runner) is required when RUNNER_MODE is local",
    path: ["RUNNER_CONTROL_SECRET"],
  });

export type Config = {
  runnerMode: "container" | "local";
  runnerUrl?: string;
  /** Local mode: the secret shared with the runner process (src/runner/runner-secret.ts). */
  runnerControlSecret?: string;
  /** Local mode: the Worker's base URL as the runner reaches it, for its notifications (else it is only polled). */
  runnerNotifyBaseUrl?: string;
  creditsPerSecond: number;
  jobTimeoutMs: number;
  runnerPollIntervalMs: number;
  /** An unfinished job untouched this long is re-sent to its coordinator by the sweeper. */
  stalledJobMs: number;
  rateLimitPerMinute: number;
  /** GET requests (polls, waits, event streams, listings) per key per minute: cheap, so a large budget. */
  readRateLimitPerMinute: number;
  /** Dry runs with `?probe=true` per account per minute: each holds a runner, unbilled. */
  probeRateLimitPerMinute: number;
  /** Probes one account may have running at once: rate alone let one account hold every runner slot. */
  probeConcurrencyPerAccount: number;
  /**
   * RUNNER_SANDBOX for production containers: "on": bubblewrap, else the uid fallback; "namespaces":
   * bubblewrap or no jobs; "off": limits only (only where the host has no user namespaces).
   */
  containerSandbox: "on" | "namespaces" | "off";
  /** A container job's disk: its outputs and work files, and inputs it copies whole (RUNNER_JOB_DISK_BYTES). */
  containerJobDiskBytes: number;
  containerPlacement: ContainerPlacement;
  /** A container with no job for this long stops (it bills like a busy one while it runs). */
  containerIdleSeconds: number;
  maxActiveJobsPerAccount: number;
  /** Files one directory output may hold (HLS segments, image sequences); more fails the job. */
  maxDirectoryFiles: number;
  /** How long uploaded files and job outputs are kept; then the scheduled cleanup deletes their bytes. */
  uploadRetentionMs: number;
  outputRetentionMs: number;
  allowedPrivateHosts: string[];
  /** DNS over HTTPS (JSON API) the containers' egress resolves client URLs with (src/net/doh-resolver.ts). */
  egressResolverUrl: string;
  webhookRetryDelaysSeconds: number[];
  storage: {
    bucketName: string;
    s3Endpoint?: string;
    accessKeyId?: string;
    secretAccessKey?: string;
    tokenSecret?: string;
  };
};

const cache = new WeakMap<object, Config>();

/** Reads and validates the environment once per isolate; a bad value fails loudly at first use. */
export function loadConfig(env: Env): Config {
  const cached = cache.get(env);
  if (cached) return cached;
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`Invalid configuration: ${problems}`);
  }
  const c = parsed.data;
  const config: Config = {
    runnerMode: c.RUNNER_MODE,
    runnerUrl: c.RUNNER_URL,
    runnerControlSecret: c.RUNNER_CONTROL_SECRET,
    runnerNotifyBaseUrl: c.RUNNER_NOTIFY_BASE_URL?.replace(/\/+$/, ""),
    creditsPerSecond: c.CREDITS_PER_SECOND,
    jobTimeoutMs: c.JOB_TIMEOUT_SECONDS * 1000,
    runnerPollIntervalMs: c.RUNNER_POLL_INTERVAL_MS,
    stalledJobMs: c.STALLED_JOB_SECONDS * 1000,
    rateLimitPerMinute: c.RATE_LIMIT_PER_MINUTE,
    readRateLimitPerMinute: c.READ_RATE_LIMIT_PER_MINUTE,
    probeRateLimitPerMinute: c.PROBE_RATE_LIMIT_PER_MINUTE,
    probeConcurrencyPerAccount: c.PROBE_CONCURRENCY_PER_ACCOUNT,
    containerSandbox: c.CONTAINER_RUNNER_SANDBOX,
    containerJobDiskBytes: c.CONTAINER_JOB_DISK_BYTES,
    containerPlacement: c.CONTAINER_PLACEMENT,
    containerIdleSeconds: c.CONTAINER_IDLE_SECONDS,
    maxActiveJobsPerAccount: c.MAX_ACTIVE_JOBS_PER_ACCOUNT,
    maxDirectoryFiles: c.MAX_DIRECTORY_FILES,
    uploadRetentionMs: c.UPLOAD_RETENTION_DAYS * 24 * 3600_000,
    outputRetentionMs: c.OUTPUT_RETENTION_DAYS * 24 * 3600_000,
    allowedPrivateHosts: c.ALLOWED_PRIVATE_HOSTS,
    egressResolverUrl: c.EGRESS_RESOLVER_URL,
    webhookRetryDelaysSeconds: c.WEBHOOK_RETRY_SCHEDULE_SECONDS,
    storage: {
      bucketName: c.R2_BUCKET_NAME,
      s3Endpoint: c.R2_S3_ENDPOINT,
      accessKeyId: c.R2_ACCESS_KEY_ID,
      secretAccessKey: c.R2_SECRET_ACCESS_KEY,
      tokenSecret: c.STORAGE_TOKEN_SECRET,
    },
  };
  cache.set(env, config);
  return config;
}
