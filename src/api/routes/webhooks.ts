import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env.ts";
import { ApiError, unknownCursor } from "../api-error.ts";
import { operation, serveOperations } from "../operation.ts";
import { errors, json, jsonBody } from "../openapi-responses.ts";
import { idParamSchema } from "../schemas/common.ts";
import { listDeliveriesQuerySchema, webhookTestSchema } from "../schemas/webhooks.ts";
import { createServices } from "../../services.ts";
import { decodeCursor } from "../../storage/keyset-page.ts";
import {
  attemptsOf,
  getDelivery,
  insertDelivery,
  listDeliveries as readDeliveries,
  recordAttempt,
  reopenDelivery,
  type AttemptRow,
  type ListedDelivery,
} from "../../webhooks/delivery-store.ts";
import { getSecrets, rotateSecret, signingSecrets, type WebhookSecrets } from "../../webhooks/secret-store.ts";
import { DELIVERY_ERROR_TEXT, sendWebhook, type DeliveryErrorKind } from "../../webhooks/send-webhook.ts";
import { secretPreview } from "../../webhooks/signing.ts";
import { eventBody, TEST_EVENT_TYPE, testEventData } from "../../webhooks/webhook-event.ts";
import { newEventId } from "../../webhooks/job-end-event.ts";

const secretView = (s: WebhookSecrets) => ({
  secret: s.current,
  createdAt: s.createdAt,
  previousSecretExpiresAt: s.previousExpiresAt,
});

function deliveryView(d: ListedDelivery, attempts: AttemptRow[]) {
  return {
    id: d.id,
    eventId: d.event_id,
    eventType: d.event_type,
    jobId: d.job_id,
    url: d.url,
    status: d.status,
    attemptCount: d.attempt_count,
    createdAt: d.created_at,
    updatedAt: d.updated_at,
    attempts: attempts
      .filter((a) => a.delivery_id === d.id)
      .map((a) => ({
        attemptedAt: a.attempted_at,
        httpStatus: a.http_status,
        errorKind: a.error_kind,
        latencyMs: a.latency_ms,
        error:
          a.error_kind && a.error_kind in DELIVERY_ERROR_TEXT
            ? DELIVERY_ERROR_TEXT[a.error_kind as DeliveryErrorKind]
            : null,
      })),
  };
}

const getWebhookSecret = operation(
  createRoute({
    method: "get",
    path: "/secret",
    operationId: "getWebhookSecret",
    summary: "The account's webhook signing secret",
    responses: { 200: json("WebhookSecret", "The secret"), ...errors() },
  }),
  async (c) => c.json(secretView(await getSecrets(c.env.DB, c.get("account").id, new Date()))),
);

const rotateWebhookSecret = operation(
  createRoute({
    method: "post",
    path: "/secret/rotate",
    operationId: "rotateWebhookSecret",
    summary: "Rotate the signing secret (the old one keeps signing for 24 h)",
    responses: { 200: json("WebhookSecret", "The new secret"), ...errors() },
  }),
  async (c) => c.json(secretView(await rotateSecret(c.env.DB, c.get("account").id, new Date()))),
);

/** Sends one signed webhook.test now and reports what the receiver answered (never its body). */
const testWebhook = operation(
  createRoute({
    method: "post",
    path: "/test",
    operationId: "testWebhook",
    summary: "Send a signed webhook.test now",
    request: { body: jsonBody(webhookTestSchema) },
    responses: {
      200: json("WebhookTestResult", "What the receiver answered"),
      ...errors({ 400: ["INVALID_REQUEST"], 413: ["PAYLOAD_TOO_LARGE"] }),
    },
  }),
  async (c) => {
    const s = createServices(c.env);
    const accountId = c.get("account").id;
    const { url } = c.req.valid("json");
    const now = s.now();
    const secrets = await getSecrets(s.db, accountId, now);
    const delivery = {
      id: crypto.randomUUID(),
      accountId,
      jobId: null,
      eventId: newEventId(),
      eventType: TEST_EVENT_TYPE,
      url,
      payload: eventBody(TEST_EVENT_TYPE, testEventData(accountId), now),
      now: now.toISOString(),
    };
    await insertDelivery(s.db, delivery);
    const result = await sendWebhook(
      { url, eventId: delivery.eventId, body: delivery.payload, secrets: signingSecrets(secrets) },
      { allowedPrivateHosts: s.config.allowedPrivateHosts, now: s.now },
    );
    await recordAttempt(
      s.db,
      { id: delivery.id, account_id: accountId },
      result,
      result.ok ? "succeeded" : "failed",
      s.now().toISOString(),
      s.metrics,
    );
    return c.json({
      ok: result.ok,
      status: result.httpStatus ?? 0,
      deliveryId: delivery.id,
      secretPreview: secretPreview(secrets.current),
      // A refused connection, a DNS failure and a timeout read alike (no port scanning); a URL the policy refuses says so.
      ...(result.errorKind ? { error: DELIVERY_ERROR_TEXT[result.errorKind as DeliveryErrorKind] } : {}),
    });
  },
);

const listDeliveries = operation(
  createRoute({
    method: "get",
    path: "/deliveries",
    operationId: "listDeliveries",
    summary: "The delivery log, newest first, with every attempt",
    request: { query: listDeliveriesQuerySchema },
    responses: { 200: json("DeliveryList", "A page of deliveries"), ...errors({ 400: ["INVALID_REQUEST"] }) },
  }),
  async (c) => {
    const q = c.req.valid("query");
    const cursor = q.cursor === undefined ? undefined : decodeCursor(q.cursor);
    if (cursor === null) throw unknownCursor();
    const page = await readDeliveries(c.env.DB, c.get("account").id, { limit: q.limit, jobId: q.jobId, cursor });
    return c.json({ data: page.rows.map((d) => deliveryView(d, page.attempts)), nextCursor: page.nextCursor });
  },
);

/** Sends a delivery again under the same event id (and so the same webhook-id). */
const redeliverWebhook = operation(
  createRoute({
    method: "post",
    path: "/deliveries/{id}/redeliver",
    operationId: "redeliverWebhook",
    summary: "Send a delivery again (same event id)",
    request: { params: idParamSchema },
    responses: {
      202: json("Delivery", "The reopened delivery"),
      ...errors({ 400: ["INVALID_REQUEST"], 404: ["NOT_FOUND"] }),
    },
  }),
  async (c) => {
    const delivery = await getDelivery(c.env.DB, c.req.valid("param").id, c.get("account").id);
    if (!delivery) throw new ApiError("NOT_FOUND", "No delivery with this id");
    await reopenDelivery(c.env.DB, delivery.id, new Date().toISOString());
    await c.env.WEBHOOKS_QUEUE.send({ deliveryId: delivery.id });
    return c.json(
      deliveryView((await getDelivery(c.env.DB, delivery.id))!, await attemptsOf(c.env.DB, [delivery.id])),
      202,
    );
  },
);

export const webhookRoutes = new OpenAPIHono<AppEnv>();
serveOperations(webhookRoutes, getWebhookSecret, rotateWebhookSecret, testWebhook, listDeliveries, redeliverWebhook);
