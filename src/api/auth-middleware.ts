import { createMiddleware } from "hono/factory";
import { hashApiKey, looksLikeApiKey } from "../auth/api-keys.ts";
import { loadConfig } from "../config.ts";
import { findAccountByKey, type Account } from "../auth/account-store.ts";
import { ApiError } from "./api-error.ts";
import type { AppEnv } from "./app-env.ts";

const CHALLENGE = { "WWW-Authenticate": 'Bearer realm="ffjobs"' };

/**
 * Bearer API key on every /v1 route (the account it belongs to scopes everything after), then the
 * key's request rate: writes against RATE_LIMIT_PER_MINUTE, reads (GET) against their own budget.
 */
export const requireApiKey = createMiddleware<AppEnv>(async (c, next) => {
  const header = c.req.header("Authorization") ?? "";
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  const key = match?.[1];
  let account: Account | null = null;
  if (key && looksLikeApiKey(key)) account = await findAccountByKey(c.env.DB, key);
  if (!account) {
    const message = header
      ? "The API key is invalid or revoked"
      : "Missing API key: send Authorization: Bearer <API_KEY>";
    throw new ApiError("UNAUTHORIZED", message, { headers: CHALLENGE });
  }
  c.set("account", account);
  const limiter = c.env.RATE_LIMITER.get(c.env.RATE_LIMITER.idFromName(await hashApiKey(key!)));
  const config = loadConfig(c.env);
  const read = c.req.method === "GET" || c.req.method === "HEAD";
  const { allowed, retryAfterSeconds } = await limiter.take(
    read ? config.readRateLimitPerMinute : config.rateLimitPerMinute,
    read ? "read" : "write",
  );
  if (!allowed) {
    throw new ApiError("RATE_LIMITED", `Too many requests for this API key; retry in ${retryAfterSeconds} s`, {
      headers: { "Retry-After": String(retryAfterSeconds) },
    });
  }
  await next();
});
