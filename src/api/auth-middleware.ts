import { createMiddleware } from "hono/factory";
import { looksLikeApiKey } from "../auth/api-keys.ts";
import { findAccountByKey, type Account } from "../auth/account-store.ts";
import { ApiError } from "./api-error.ts";
import type { AppEnv } from "./app-env.ts";

const CHALLENGE = { "WWW-Authenticate": 'Bearer realm="ffjobs"' };

/** Bearer API key on every /v1 route; the account it belongs to scopes everything after. */
export const requireApiKey = createMiddleware<AppEnv>(async (c, next) => {
  const header = c.req.header("Authorization") ?? "";
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  const key = match?.[1];
  let account: Account | null = null;
  if (key && looksLikeApiKey(key)) account = await findAccountByKey(c.env.DB, key);
  if (!account) {
    const message = header ? "The API key is invalid or revoked" : "Missing API key: send Authorization: Bearer <API_KEY>";
    throw new ApiError("UNAUTHORIZED", message, { headers: CHALLENGE });
  }
  c.set("account", account);
  await next();
});
