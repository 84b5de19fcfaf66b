import { loadConfig, type Config } from "./config.ts";
import type { Env } from "./env.ts";
import { containerTransport } from "./runner/container-transport.ts";
import { createRunnerClient, localTransport, type RunnerClient } from "./runner/runner-client.ts";
import { createPresigner, type Presigner } from "./storage/presigner.ts";
import type { DeliveryMessage } from "./webhooks/job-end-event.ts";
import type { JobMessage } from "./jobs/job-message.ts";

/** Everything the job logic depends on, built once from the environment; tests build their own. */
export type Services = {
  db: D1Database;
  bucket: R2Bucket;
  config: Config;
  presigner: Presigner;
  runner: RunnerClient;
  jobsQueue: Queue<JobMessage>;
  webhooksQueue: Queue<DeliveryMessage>;
  now: () => Date;
  /** Called once a job has reached a terminal state (the coordinator wakes its waiting clients). */
  onJobEnded?: (jobId: string) => void;
  /** Called with a running job's progress as saved (the coordinator hands it to event streams). */
  onProgress?: (progress: unknown, at: string) => void;
};

export function createServices(env: Env): Services {
  const config = loadConfig(env);
  const transport =
    config.runnerMode === "local"
      ? localTransport(config.runnerUrl!, config.runnerControlSecret!)
      : containerTransport(requireBinding(env.FFMPEG_CONTAINER, "FFMPEG_CONTAINER"), requireBinding(env.CONTAINER_POOL, "CONTAINER_POOL"), config.containerPlacement);
  return {
    db: env.DB,
    bucket: env.BUCKET,
    config,
    presigner: createPresigner(config.storage),
    runner: createRunnerClient(transport),
    jobsQueue: env.JOBS_QUEUE,
    webhooksQueue: env.WEBHOOKS_QUEUE,
    now: () => new Date(),
  };
}

function requireBinding<T>(binding: T | undefined, name: string): T {
  if (!binding) throw new Error(`${name} binding is missing (RUNNER_MODE=container needs it)`);
  return binding;
}
