import type { OpenAPIHono, RouteConfig, RouteHandler } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { z } from "zod";
import type { AppEnv } from "./app-env.ts";
import { requestBodyName, ref } from "./openapi-components.ts";
import { parametersOf, type Parameter } from "./openapi-parameters.ts";
import { requireJsonBody, validate } from "./validation.ts";

type Body = NonNullable<NonNullable<RouteConfig["request"]>["body"]>;

/**
 * A route as the API declares it, once: createRoute's config (method, path, operationId, summary,
 * security, request, responses) beside its handler. Path and query parameters are zod objects
 * (`request.params`, `request.query`): validated, typed for `c.req.valid`, and documented from the one
 * schema (openapi-parameters.ts). Headers are read by the code that uses them (Idempotency-Key by its
 * middleware, Prefer by the wait), so they are listed as `parameters`. A JSON body is either
 * `jsonBody(schema)` (openapi-responses.ts), validated against the schema and documented by its name,
 * or a plain schema object that the route's own `middleware` checks (a job, raw or preset).
 */
export type ApiRoute = Omit<RouteConfig, "parameters"> & {
  request?: { params?: z.ZodObject; query?: z.ZodObject; body?: Body };
  parameters?: Parameter[];
  middleware?: MiddlewareHandler<AppEnv>[];
};

/** A route's handler: its context is typed from the declaration (`c.req.valid("param")`, `("query")`, `("json")`). */
export type OperationHandler<R extends ApiRoute> = (
  c: Parameters<RouteHandler<R, AppEnv>>[0],
) => Response | Promise<Response>;

/** One operation of the API: its declaration and its handler. */
export type Operation<R extends ApiRoute = ApiRoute> = { route: R; handler: OperationHandler<R> };

export const operation = <R extends ApiRoute>(route: R, handler: OperationHandler<R>): Operation<R> => ({
  route,
  handler,
});

/**
 * Serves the operations on `app`, in this order, and adds each to the app's OpenAPI document (its
 * registry, which `app.route` merges into the parent's under the mount path). A request goes through
 * its checks in one order, the API's: the path's parameters, the query, the body's Content-Type, the
 * route's middleware (Idempotency-Key, which must come before the body's validation), then the body.
 *
 * OpenAPIHono's own `app.openapi()` would wire the same validators in another order (query before
 * path, middleware first) and put a media-type gate of its own in front of a JSON body, which answers
 * 415 to some Content-Types the API takes (`application/json;`, a space before the `;`): both would
 * change what clients get, so the routes are served here and only described through OpenAPIHono.
 */
// biome-ignore lint/suspicious/noExplicitAny: a list of operations each typed by its own route.
export function serveOperations(app: OpenAPIHono<AppEnv>, ...operations: Operation<any>[]): void {
  for (const { route, handler } of operations as Operation[]) {
    const { params, query, body } = route.request ?? {};
    const bodySchema = body && jsonSchemaOf(body);
    const checks: MiddlewareHandler[] = [
      ...(params ? [validate("param", params)] : []),
      ...(query ? [validate("query", query)] : []),
      ...(body ? [requireJsonBody] : []),
      ...(route.middleware ?? []),
      ...(bodySchema instanceof z.ZodType ? [validate("json", bodySchema)] : []),
    ];
    app.on(
      route.method.toUpperCase(),
      [route.path.replaceAll(/\{(\w+)\}/g, ":$1")],
      ...checks,
      handler as MiddlewareHandler<AppEnv>,
    );
    app.openAPIRegistry.registerPath(described(route));
  }
}

/** The route as the document has it: parameters from the path and query schemas, a validated body by its schema's name. */
function described(route: ApiRoute): RouteConfig {
  const { request: { params, query, body } = {}, parameters = [], middleware: _, ...operation } = route;
  const all = [
    ...(params ? parametersOf(params, "path") : []),
    ...(query ? parametersOf(query, "query") : []),
    ...parameters,
  ];
  const bodySchema = body && jsonSchemaOf(body);
  const documentedBody = body && {
    ...body,
    content: {
      "application/json": { schema: bodySchema instanceof z.ZodType ? ref(requestBodyName(bodySchema)) : bodySchema },
    },
  };
  return {
    ...operation,
    ...(all.length ? { parameters: all as RouteConfig["parameters"] } : {}),
    ...(documentedBody ? { request: { body: documentedBody } } : {}),
  };
}

/** The API's bodies are JSON, each with one schema. */
function jsonSchemaOf(body: Body) {
  const types = Object.keys(body.content);
  const json = body.content["application/json"];
  if (types.length !== 1 || !json || !("schema" in json))
    throw new Error(`a route's body is application/json alone, with a schema, not ${types.join(", ")}`);
  return json.schema;
}
