import type { Env } from "../../env.ts";
import type { JobMessage } from "../../queue-messages.ts";
import { dispatchRetryDelaySeconds } from "./retry-policy.ts";
import { endJob } from "./end-job.ts";
import { rejectedEnding } from "./job-endings.ts";
import { createServices } from "../../services.ts";

/**
 * The jobs queue consumer: hands each job to its coordinator, which arms its alarm and ticks the
 * job from there. Each message is acked or retried on its own; a duplicate message reaches the same
 * coordinator, whose start is a no-op while it already ticks the job.
 */
export async function consumeJobMessages(batch: MessageBatch<JobMessage>, env: Env): Promise<void> {
  await Promise.all(
    batch.messages.map(async (msg) => {
      try {
        const id = env.JOB_COORDINATOR.idFromName(msg.body.jobId);
        await env.JOB_COORDINATOR.get(id).start(msg.body.jobId);
        msg.ack();
      } catch (err) {
        console.error(`dispatch of job ${msg.body?.jobId} failed (attempt ${msg.attempts})`, err);
        msg.retry({ delaySeconds: dispatchRetryDelaySeconds(msg.attempts) });
      }
    }),
  );
}

/**
 * Dead-letter consumer: a job whose hand-off failed every retry is rejected (it never ran), so it
 * does not sit in `queued` forever and its owner learns why.
 */
export async function consumeDeadJobMessages(batch: MessageBatch<JobMessage>, env: Env): Promise<void> {
  const services = createServices(env);
  for (const msg of batch.messages) {
    await endJob(
      services,
      msg.body.jobId,
      rejectedEnding("RUNNER_UNAVAILABLE", "The job could not be dispatched to a runner"),
    );
    msg.ack();
  }
}
