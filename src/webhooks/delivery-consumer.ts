import type { Services } from "../services.ts";
import { ensurePayload } from "./job-end-event.ts";
import type { DeliveryMessage } from "../queue-messages.ts";
import { getDelivery, markFailed, recordAttempt } from "./delivery-store.ts";
import { retryDelaySeconds } from "./retry-schedule.ts";
import { getSecrets, signingSecrets } from "./secret-store.ts";
import { sendWebhook } from "./send-webhook.ts";

/** Delay before retrying a message whose attempt could not even be made (D1 or signing failed). */
const INFRASTRUCTURE_RETRY_SECONDS = 30;

/**
 * The webhooks queue consumer: one signed POST per message. Every attempt is logged; a failure is
 * retried on the documented schedule (the queue holds the message meanwhile), and after the last
 * attempt the delivery is recorded as failed. Each message is acked or retried on its own.
 */
export async function consumeDeliveries(batch: MessageBatch<DeliveryMessage>, s: Services): Promise<void> {
  await Promise.all(batch.messages.map((msg) => deliverOne(msg, s)));
}

async function deliverOne(msg: Message<DeliveryMessage>, s: Services): Promise<void> {
  try {
    const delivery = await getDelivery(s.db, msg.body.deliveryId);
    if (delivery?.status !== "pending") return msg.ack();
    const secrets = signingSecrets(await getSecrets(s.db, delivery.account_id, s.now()));
    const body = await ensurePayload(s, delivery);
    const result = await sendWebhook(
      { url: delivery.url, eventId: delivery.event_id, body, secrets },
      { allowedPrivateHosts: s.config.allowedPrivateHosts, now: s.now },
    );
    const now = s.now().toISOString();
    if (result.ok) {
      await recordAttempt(s.db, delivery, result, "succeeded", now, s.metrics);
      return msg.ack();
    }
    const delay = retryDelaySeconds(msg.attempts, s.config.webhookRetryDelaysSeconds);
    await recordAttempt(s.db, delivery, result, delay === null ? "failed" : "pending", now, s.metrics);
    if (delay === null) msg.ack();
    else msg.retry({ delaySeconds: delay });
  } catch (err) {
    console.error(`webhook delivery ${msg.body?.deliveryId} could not be attempted`, err);
    msg.retry({ delaySeconds: INFRASTRUCTURE_RETRY_SECONDS });
  }
}

/** Dead-letter consumer: a message the queue gave up on still ends as a recorded failure. */
export async function consumeDeadDeliveries(batch: MessageBatch<DeliveryMessage>, s: Services): Promise<void> {
  for (const msg of batch.messages) {
    await markFailed(s.db, msg.body.deliveryId, s.now().toISOString());
    msg.ack();
  }
}
