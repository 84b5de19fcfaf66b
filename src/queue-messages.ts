/*
 * The bodies of the Worker's queue messages. Ids only: the job and the delivery themselves live in D1,
 * so a message lost or sent twice changes nothing. Kept apart from the modules that send and consume
 * them so that src/env.ts (the bindings' types) imports no feature module.
 */

/** A message on the jobs queue: hand this job to its coordinator. */
export type JobMessage = { jobId: string };

/** A message on the webhooks queue: send this delivery. */
export type DeliveryMessage = { deliveryId: string };
