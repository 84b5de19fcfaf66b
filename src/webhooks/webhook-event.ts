// What ffjobs sends: `{ type, timestamp, data }`. `webhook-id` is the event id, fixed across retries.

/** The event a webhook test sends. Job events are `job.<terminal status>`: job.completed, job.failed, job.canceled, job.rejected. */
export const TEST_EVENT_TYPE = "webhook.test";

export type WebhookEventBody = { type: string; timestamp: string; data: unknown };

export function eventBody(type: string, data: unknown, now: Date): string {
  return JSON.stringify({ type, timestamp: now.toISOString(), data } satisfies WebhookEventBody);
}

/** The fixed `data` of a test event: enough for a receiver to route and log it. */
export function testEventData(accountId: string) {
  return { message: "This is a test event from ffjobs.", accountId };
}
