import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./app-env.ts";
import { ApiError } from "./api-error.ts";

/**
 * The operator's routes (`/v1/admin/...`): only a key of an account marked operator
 * (`npm run keys -- create --operator`) passes; any other gets 403, whatever it asks. Mounted once
 * on the whole prefix in app.ts, so a new admin route cannot forget it.
 */
export const operatorOnly = createMiddleware<AppEnv>(async (c, next) => {
  if (!c.get("account").operator) {
    throw new ApiError(
      "FORBIDDEN",
      "Only an operator account's key may use the operator's routes, /v1/admin/... (npm run keys -- create --operator)",
    );
  }
  await next();
});
