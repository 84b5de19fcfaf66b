import { loadConfig, type Config } from "./config.ts";
import type { Env } from "./env.ts";
import { containerTransport } from "./runner/container-transport.ts";
import { createRunnerClient, localTransport, type RunnerClient } from "./runner/runner-client.ts";
import { createPresigner, type Presigner } from "./storage/presigner.ts";
import type { DeliveryMessage, JobMessage } from "./queue-messages.ts";
import type { JobStatus } from "./jobs/transitions/job-states.ts";
import { counted } from "./platform/invocation.ts";
import { analyticsEngineSink, type MetricsSink } from "./metrics/analytics-engine.ts";

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
  /** Where metric events go besides the rollups (Analytics Engine where it is bound). */
  metrics?: MetricsSink;
  /** Called once a job has reached a terminal state (the coordinator wakes its waiting clients). */
  onJobEnded?: (jobId: string) => void;
  /** Called with a running job's progress as its runner reported it (the coordinator hands it to event streams and GET). */
  onProgress?: (progress: unknown, at: string) => void;
  /** Called with the job's status whenever a tick reads or changes it (the coordinator tells event streams of changes). */
  onStatus?: (status: JobStatus) => void;
};

/**
 * Built for an invocation (a request, a queue batch, a cron run, a Durable Object's event): its D1
 * queries and subrequests count against that invocation's limits where the local stack enforces them.
 */
export function createServices(env: Env): Services {
  env = counted(env);
  const config = loadConfig(env);
  const transport =
    config.runnerMode === "local"
      ? localTransport(config.runnerUrl!, config.runnerControlSecret!)
      : containerTransport(
          requireBinding(env.FFMPEG_CONTAINER, "FFMPEG_CONTAINER"),
          requireBinding(env.CONTAINER_POOL, "CONTAINER_POOL"),
          config.containerPlacement,
        );
  return {
    db: env.DB,
    bucket: env.BUCKET,
    config,
    presigner: createPresigner(config.storage),
    runner: createRunnerClient(transport),
    jobsQueue: env.JOBS_QUEUE,
    webhooksQueue: env.WEBHOOKS_QUEUE,
    now: () => new Date(),
    metrics: env.METRICS ? analyticsEngineSink(env.METRICS) : undefined,
  };
}

function requireBinding<T>(binding: T | undefined, name: string): T {
  if (!binding) throw new Error(`${name} binding is missing (RUNNER_MODE=container needs it)`);
  return binding;
}
