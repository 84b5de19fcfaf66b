/**
 * The service's OpenAPI document as GET /openapi.json serves it, built in Node by the Worker's own code
 * (its routes' declarations, src/api/openapi.ts), for `npm run client:types` and the document's tests.
 *
 * The Worker's modules are imported by a path tsc does not follow: their types need the Worker's
 * bindings (tsconfig.json), which this side's type-check (container/tsconfig.json, Node's) has not;
 * all that crosses over is the document, JSON.
 */
export type OpenApiDocument = {
  openapi: string;
  paths: Record<string, Record<string, unknown>>;
  components: Record<string, unknown>;
};

const WORKER_MODULES = { app: "../../src/api/app.ts", openapi: "../../src/api/openapi.ts" };

export async function serviceOpenApiDocument(serverUrl: string): Promise<OpenApiDocument> {
  const [{ app }, { buildOpenApiDocument }] = await Promise.all([
    import(WORKER_MODULES.app),
    import(WORKER_MODULES.openapi),
  ]);
  return JSON.parse(JSON.stringify(buildOpenApiDocument(app, serverUrl)));
}
