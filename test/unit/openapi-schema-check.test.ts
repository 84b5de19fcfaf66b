import { describe, expect, it } from "vitest";
import { schemaProblems, type OpenApiDocument } from "../support/openapi-schema-check.ts";

/** The checker the OpenAPI fuzz run (test/worker/openapi-fuzz.test.ts) trusts to find a response that breaks its schema. */
const doc: OpenApiDocument = {
  paths: {},
  components: {
    schemas: {
      Error: {
        type: "object",
        required: ["error", "code"],
        additionalProperties: false,
        properties: { error: { type: "string" }, code: { type: "string" }, status: { type: "string" } },
      },
      Page: {
        type: "object",
        required: ["data"],
        properties: {
          data: { type: "array", items: { $ref: "#/components/schemas/Error" } },
          next: { type: "string", nullable: true },
        },
      },
      Kind: { type: "string", enum: ["file", "directory"] },
      Either: { oneOf: [{ type: "string" }, { type: "integer" }] },
    },
  },
};
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

describe("schemaProblems", () => {
  it("passes what fits", () => {
    expect(
      schemaProblems(doc, ref("Page"), { data: [{ error: "e", code: "C", status: "completed" }], next: null }),
    ).toEqual([]);
  });

  it("finds a field the schema forbids, a missing one, a wrong type, a null where none is allowed, and a value outside an enum", () => {
    expect(schemaProblems(doc, ref("Error"), { error: "e", code: "C", extra: 1 })).toEqual([
      "$: has extra, which the schema does not allow",
    ]);
    expect(schemaProblems(doc, ref("Error"), { error: "e" })).toEqual(["$: lacks required code"]);
    expect(schemaProblems(doc, ref("Page"), { data: [{ error: 1, code: "C" }] })).toEqual([
      "$.data.0.error: not a string",
    ]);
    expect(schemaProblems(doc, ref("Page"), { data: null })).toEqual([
      "$.data: null, but the schema does not allow null",
    ]);
    expect(schemaProblems(doc, ref("Kind"), "folder")).toEqual(['$: "folder" is not one of ["file","directory"]']);
  });

  it("wants exactly one of oneOf", () => {
    expect(schemaProblems(doc, ref("Either"), 3)).toEqual([]);
    expect(schemaProblems(doc, ref("Either"), 2.5)).toEqual(["$: matches 0 of oneOf, not exactly one"]);
  });
});
