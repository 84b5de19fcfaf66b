import { app } from "./api/app.ts";
import type { Env } from "./env.ts";
import { consumeDeadJobMessages, consumeJobMessages } from "./jobs/dispatch-consumer.ts";
import type { JobMessage } from "./jobs/job-message.ts";

export { JobCoordinator } from "./jobs/job-coordinator.ts";
export { FfmpegContainer } from "./runner/ffmpeg-container.ts";

const DEAD_LETTER_QUEUE = "ffjobs-jobs-dlq";

export default {
  fetch: app.fetch,
  async queue(batch: MessageBatch<JobMessage>, env: Env): Promise<void> {
    if (batch.queue === DEAD_LETTER_QUEUE) await consumeDeadJobMessages(batch, env);
    else await consumeJobMessages(batch, env);
  },
} satisfies ExportedHandler<Env, JobMessage>;
