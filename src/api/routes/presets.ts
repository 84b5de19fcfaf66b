import { Hono } from "hono";
import type { AppEnv } from "../app-env.ts";
import { ApiError } from "../api-error.ts";
import { PRESETS, presetView } from "../../presets/catalog.ts";

export const presetRoutes = new Hono<AppEnv>();

presetRoutes.get("/", (c) => c.json({ data: [...PRESETS.values()].map(presetView) }));

presetRoutes.get("/:name", (c) => {
  const preset = PRESETS.get(c.req.param("name"));
  if (!preset) throw new ApiError("NOT_FOUND", "No preset with this name");
  return c.json(presetView(preset));
});
