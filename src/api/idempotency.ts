import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./app-env.ts";
import { ApiError } from "./api-error.ts";
import type { Parameter } from "./openapi-parameters.ts";
import { claimKey, readKey, recordResponse, releaseKey } from "../storage/idempotency-store.ts";

/** An `Idempotency-Key` header: 1-255 visible ASCII characters. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** The header as the routes that take it (the `idempotent` ones) document it. */
export const IDEMPOTENCY_KEY_HEADER: Parameter = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  schema: { type: "string", pattern: IDEMPOTENCY_KEY_PATTERN.source },
  description: "Retries with the same key and body get the first response again (24 h)",
};

/** How long a key's response is kept for retries. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;
/** A duplicate that arrives while the first request still runs waits this long for its answer. */
const IN_FLIGHT_WAIT_MS = 10_000;
const IN_FLIGHT_POLL_MS = 50;
/** Longer than any request holds a key (a 60 s wait, plus creation): older unanswered claims were abandoned. */
export const IN_FLIGHT_LEASE_MS = 2 * 60_000;

/**
 * `Idempotency-Key` (IETF draft) for a create operation: the first request with a key runs and its
 * successful response is stored; a retry with the same key and the same JSON body gets that response
 * again (`Idempotent-Replayed: true`) for 24 h; the same key with another body is a 409. Of
 * concurrent duplicates one runs, the others wait for its answer. An error answer is not stored, so
 * a retry runs afresh; a claim whose request died unanswered is free again after IN_FLIGHT_LEASE_MS.
 */
export const idempotent = (operation: string) =>
  createMiddleware<AppEnv>(async (c, next) => {
    const key = c.req.header("Idempotency-Key");
    if (key === undefined) return next();
    if (!IDEMPOTENCY_KEY_PATTERN.test(key))
      throw new ApiError("INVALID_REQUEST", "Idempotency-Key must be 1-255 visible ASCII characters", {
        details: [{ path: ["header", "Idempotency-Key"], message: "bad Idempotency-Key header", code: "custom" }],
      });
    const db = c.env.DB;
    const claim = {
      account: c.get("account").id,
      operation,
      key,
      hash: await bodyHash(await c.req.text()),
      now: new Date(),
      ttlMs: IDEMPOTENCY_TTL_MS,
      leaseMs: IN_FLIGHT_LEASE_MS,
    };
    if (await claimKey(db, claim)) {
      try {
        await next();
      } catch (err) {
        await releaseKey(db, claim);
        throw err;
      }
      // Only a success is remembered: a 4xx (an asset not ready yet, say) may succeed on a retry.
      if (c.res.status >= 300) await releaseKey(db, claim);
      else
        await recordResponse(db, claim, {
          status: c.res.status,
          body: await c.res.clone().text(),
          location: c.res.headers.get("Location"),
        });
      return;
    }
    const deadline = Date.now() + IN_FLIGHT_WAIT_MS;
    for (;;) {
      const row = await readKey(db, claim);
      if (!row)
        throw new ApiError("IDEMPOTENCY_KEY_IN_USE", "The first request with this Idempotency-Key failed; retry it");
      if (row.request_hash !== claim.hash) {
        throw new ApiError(
          "IDEMPOTENCY_KEY_REUSED",
          "This Idempotency-Key was used with a different request body; use a new key for a new request",
        );
      }
      if (row.status !== null) {
        const headers: Record<string, string> = { "content-type": "application/json", "Idempotent-Replayed": "true" };
        if (row.location) headers.Location = row.location;
        // An answer too large to keep (recordResponse): the resource it created, by its Location.
        if (row.response_json === null && row.location)
          return new Response(null, {
            status: 303,
            headers: { Location: row.location, "Idempotent-Replayed": "true" },
          });
        return new Response(row.response_json, { status: row.status, headers });
      }
      if (Date.now() > deadline)
        throw new ApiError(
          "IDEMPOTENCY_KEY_IN_USE",
          "A request with this Idempotency-Key is still running; retry shortly",
        );
      await new Promise((r) => setTimeout(r, IN_FLIGHT_POLL_MS));
    }
  });

/** The body's JSON with object keys sorted, hashed: the same request however its keys are ordered. */
async function bodyHash(text: string): Promise<string> {
  let canonical = text;
  try {
    canonical = JSON.stringify(sortKeys(JSON.parse(text)));
  } catch {
    // not JSON: the validator answers it; hash the bytes as they are
  }
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(canonical));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object")
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  return v;
}
