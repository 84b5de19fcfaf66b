import { createMiddleware } from "hono/factory";
import { HTTPException } from "hono/http-exception";
import { detailsFromZod, invalidRequest } from "./api-error.ts";
import type { AppEnv } from "./app-env.ts";
import { createJobSchema, presetJobSchema } from "./schemas.ts";

/**
 * `POST /v1/jobs` takes two shapes, told apart by `mode`: a raw job (`ffmpegArgs`, the default) or a
 * preset job (`"mode": "preset"`). Each is validated against its own schema, so its errors name
 * its own fields.
 */
export const validateCreateJob = createMiddleware<AppEnv>(async (c, next) => {
  const body: unknown = await c.req.json().catch(() => {
    throw new HTTPException(400, { message: "Malformed JSON in request body" });
  });
  const isPreset = typeof body === "object" && body !== null && (body as { mode?: unknown }).mode === "preset";
  const parsed = (isPreset ? presetJobSchema : createJobSchema).safeParse(body);
  if (!parsed.success) throw invalidRequest(detailsFromZod(parsed.error.issues));
  c.set("createJob", parsed.data);
  await next();
});
