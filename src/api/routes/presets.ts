import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env.ts";
import { ApiError } from "../api-error.ts";
import { operation, serveOperations } from "../operation.ts";
import { errors, json } from "../openapi-responses.ts";
import { presetNameParamSchema } from "../schemas/presets.ts";
import { PRESETS, presetView } from "../../presets/catalog.ts";

const listPresets = operation(
  createRoute({
    method: "get",
    path: "/",
    operationId: "listPresets",
    summary: "The presets: name, description, binary, inputs, params (JSON Schema) and outputs",
    responses: { 200: json("FreeForm", "The presets"), ...errors() },
  }),
  (c) => c.json({ data: [...PRESETS.values()].map(presetView) }),
);

const getPreset = operation(
  createRoute({
    method: "get",
    path: "/{name}",
    operationId: "getPreset",
    summary: "One preset",
    request: { params: presetNameParamSchema },
    responses: { 200: json("FreeForm", "The preset"), ...errors({ 404: ["NOT_FOUND"] }) },
  }),
  (c) => {
    const preset = PRESETS.get(c.req.valid("param").name);
    if (!preset) throw new ApiError("NOT_FOUND", "No preset with this name");
    return c.json(presetView(preset));
  },
);

export const presetRoutes = new OpenAPIHono<AppEnv>();
serveOperations(presetRoutes, listPresets, getPreset);
