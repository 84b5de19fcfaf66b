import type { JobCoordinator } from "./jobs/job-coordinator.ts";
import type { RateLimiter } from "./api/rate-limit.ts";
import type { FfmpegContainer } from "./runner/ffmpeg-container.ts";
import type { ContainerPool } from "./runner/container-pool.ts";
import type { JobMessage } from "./jobs/job-message.ts";
import type { DeliveryMessage } from "./webhooks/job-end-event.ts";

/** Bindings and vars as wrangler.toml declares them. Read only through `loadConfig` and the adapters. */
export interface Env {
  DB: D1Database;
  BUCKET: R2Bucket;
  JOBS_QUEUE: Queue<JobMessage>;
  WEBHOOKS_QUEUE: Queue<DeliveryMessage>;
  JOB_COORDINATOR: DurableObjectNamespace<JobCoordinator>;
  FFMPEG_CONTAINER?: DurableObjectNamespace<FfmpegContainer>;
  CONTAINER_POOL?: DurableObjectNamespace<ContainerPool>;
  RUNNER_MODE?: string;
  RUNNER_URL?: string;
  RUNNER_NOTIFY_BASE_URL?: string;
  CREDITS_PER_SECOND?: string;
  JOB_TIMEOUT_SECONDS?: string;
  ALLOWED_PRIVATE_HOSTS?: string;
  R2_BUCKET_NAME?: string;
  R2_S3_ENDPOINT?: string;
  R2_ACCESS_KEY_ID?: string;
  R2_SECRET_ACCESS_KEY?: string;
  RUNNER_POLL_INTERVAL_MS?: string;
  STALLED_JOB_SECONDS?: string;
  WEBHOOK_RETRY_SCHEDULE_SECONDS?: string;
  RATE_LIMIT_PER_MINUTE?: string;
  READ_RATE_LIMIT_PER_MINUTE?: string;
  CONTAINER_RUNNER_SANDBOX?: string;
  CONTAINER_PLACEMENT?: string;
  CONTAINER_IDLE_SECONDS?: string;
  MAX_ACTIVE_JOBS_PER_ACCOUNT?: string;
  MAX_DIRECTORY_FILES?: string;
  RATE_LIMITER: DurableObjectNamespace<RateLimiter>;
}
