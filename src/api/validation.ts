import { zValidator } from "@hono/zod-validator";
import { createMiddleware } from "hono/factory";
import type { z } from "zod";
import { ApiError, detailsFromZod, invalidRequest } from "./api-error.ts";
import { bodyShapeProblem } from "./body-shape.ts";

type Target = "json" | "query" | "param";

/** Where a problem was, as OpenAPI names the places: a body's paths start at the body, others say where. */
const LOCATION: Record<Target, string[]> = { json: [], query: ["query"], param: ["path"] };

/** zod validation whose failures become the spec's INVALID_REQUEST body. */
export const validate = <T extends z.ZodType, Tg extends Target>(target: Tg, schema: T) =>
  zValidator(target, schema, async (result, c) => {
    if (target === "json") refuseBodyShape(await c.req.json());
    if (!result.success) throw invalidRequest(detailsFromZod(result.error.issues, LOCATION[target]));
  });

/** A key `__proto__` anywhere in a JSON body, or a body nested too deep, is refused (body-shape.ts says why). */
export function refuseBodyShape(body: unknown): void {
  const problem = bodyShapeProblem(body);
  if (problem) throw invalidRequest([{ ...problem, code: "custom" }]);
}

/** Bodies must be declared JSON: otherwise the validator would see `{}` and blame a missing field. */
export const requireJsonBody = createMiddleware(async (c, next) => {
  const type = c.req.header("Content-Type") ?? "";
  if (!/^application\/([\w.-]+\+)?json\s*(;|$)/i.test(type)) {
    throw new ApiError("INVALID_REQUEST", "Content-Type must be application/json", {
      details: [{ path: [], message: "send a JSON body with Content-Type: application/json", code: "invalid_type" }],
    });
  }
  await next();
});
