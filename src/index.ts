import { app } from "./api/app.ts";
import type { Env } from "./env.ts";
import { consumeDeadJobMessages, consumeJobMessages } from "./jobs/lifecycle/dispatch-consumer.ts";
import { createServices } from "./services.ts";
import { startInvocation } from "./platform/invocation.ts";
import { runScheduled } from "./maintenance/scheduled.ts";
import { consumeDeadDeliveries, consumeDeliveries } from "./webhooks/delivery-consumer.ts";
import type { DeliveryMessage, JobMessage } from "./queue-messages.ts";

export { JobCoordinator } from "./jobs/lifecycle/job-coordinator.ts";
export { FfmpegContainer } from "./runner/ffmpeg-container.ts";
export { ContainerPool } from "./runner/container-pool.ts";
export { RateLimiter } from "./api/rate-limit.ts";
// The containers library reaches the Worker's outbound handlers through this entrypoint
// (ctx.exports.ContainerProxy): without it no container can start with egress interception.
export { ContainerProxy } from "@cloudflare/containers";

/** Queue names as in wrangler.toml: one Worker consumes all four. */
export const QUEUES = {
  jobs: "ffjobs-jobs",
  jobsDead: "ffjobs-jobs-dlq",
  webhooks: "ffjobs-webhooks",
  webhooksDead: "ffjobs-webhooks-dlq",
} as const;

// Each handler is an invocation: its D1 queries and subrequests count against a budget of its own
// where the local stack enforces the platform's limits (src/platform/invocation.ts).
export default {
  fetch: (request: Request, env: Env, ctx: ExecutionContext) =>
    startInvocation(env, (env) => app.fetch(request, env, ctx)),
  scheduled: (_controller: ScheduledController, env: Env): Promise<void> =>
    startInvocation(env, (env) => runScheduled(createServices(env), env.BUCKET)),
  // The queue's name says which message type its batch holds (src/queue-messages.ts).
  queue: (batch: MessageBatch<unknown>, env: Env): Promise<void> =>
    startInvocation(env, async (env) => {
      switch (batch.queue) {
        case QUEUES.jobsDead:
          return consumeDeadJobMessages(batch as MessageBatch<JobMessage>, env);
        case QUEUES.webhooks:
          return consumeDeliveries(batch as MessageBatch<DeliveryMessage>, createServices(env));
        case QUEUES.webhooksDead:
          return consumeDeadDeliveries(batch as MessageBatch<DeliveryMessage>, createServices(env));
        default:
          return consumeJobMessages(batch as MessageBatch<JobMessage>, env);
      }
    }),
} satisfies ExportedHandler<Env>;
