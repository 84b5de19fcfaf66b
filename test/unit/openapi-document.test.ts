import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { serviceOpenApiDocument, type OpenApiDocument } from "../../client/scripts/service-openapi-document.ts";

/**
 * The document as it was served while every route was listed twice (its handler, and a hand-kept
 * openapi.ts): what clients were generated from. The routes now declare their own descriptions; the
 * document generated from them must say the same. Written with
 * `JSON.stringify(buildOpenApiDocument("https://ffjobs.invalid"), null, 2)` at that time; a change to
 * the API that is meant rewrites it in the same commit (now `buildOpenApiDocument(app, …)`).
 */
const BEFORE = JSON.parse(readFileSync(resolve(import.meta.dirname, "fixtures/openapi-document-before.json"), "utf8"));

describe("the OpenAPI document generated from the routes' declarations", () => {
  let generated: OpenApiDocument;
  beforeAll(async () => {
    generated = await serviceOpenApiDocument("https://ffjobs.invalid");
  });

  // Compared parsed, so key order is no difference; and there is none other: nothing a client reads changed.
  it("is the document served before", () => {
    expect(generated).toEqual(BEFORE);
  });

  // Generated clients follow the document's order (openapi-typescript writes paths and operations as
  // they come), so the same document in another order would still rewrite client/src/api-types.ts.
  it("lists the paths in the same order", () => {
    expect(Object.keys(generated.paths)).toEqual(Object.keys(BEFORE.paths));
  });
});
