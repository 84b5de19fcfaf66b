import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./app-env.ts";
import { API_ERRORS } from "./error-codes.ts";
import { componentSchemas } from "./openapi-components.ts";

/**
 * The OpenAPI document (`GET /openapi.json`): its paths generated from the routes' declarations
 * (src/api/operation.ts; each route's in its own file), this file's what is document-wide: the
 * description, the server, the security scheme and the named schemas (openapi-components.ts), which
 * the routes refer to by name.
 */
export function buildOpenApiDocument(app: OpenAPIHono<AppEnv>, serverUrl: string) {
  const generated = app.getOpenAPIDocument({
    openapi: "3.0.3",
    info: {
      title: "ffjobs",
      version: "1.0.0",
      description: `Asynchronous FFmpeg/FFprobe jobs. Error codes: ${Object.keys(API_ERRORS).join(", ")}. Full contract: docs/api.md.`,
      license: { name: "Proprietary", url: `${serverUrl}/docs#license` },
    },
    servers: [{ url: serverUrl }],
    // Every operation needs the API key unless it says otherwise (`security: []`: a directory output's files).
    security: [{ bearer: [] }],
  });
  // The generator renders no schema itself (the routes hand it rendered parameters and names), so its
  // components are empty: the document's are these.
  return {
    ...generated,
    components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } }, schemas: componentSchemas() },
  };
}
