import { describe, expect, it } from "vitest";
import { bodyShapeProblem, MAX_BODY_DEPTH } from "../../src/api/body-shape.ts";

const nested = (depth: number, inner = "0") => JSON.parse(`${"[".repeat(depth)}${inner}${"]".repeat(depth)}`);

describe("a JSON body's shape", () => {
  it("names the path of a __proto__ key, at any depth, in objects and arrays", () => {
    expect(bodyShapeProblem(JSON.parse(`{"a":{"b":[{"c":1},{"__proto__":{}}]}}`))).toMatchObject({
      path: ["a", "b", "1", "__proto__"],
      message: expect.stringMatching(/Object\.prototype/),
    });
    expect(bodyShapeProblem(JSON.parse(`{"__proto__":1}`))?.path).toEqual(["__proto__"]);
    expect(bodyShapeProblem({ a: [1, "x", null, { constructor: 1 }] })).toBeNull();
  });

  it(`takes ${MAX_BODY_DEPTH} levels and refuses the next, wherever it is, before walking further (a 1 MiB body nests 500,000 deep)`, () => {
    expect(bodyShapeProblem(nested(MAX_BODY_DEPTH))).toBeNull();
    expect(bodyShapeProblem({ a: nested(MAX_BODY_DEPTH) })).toMatchObject({
      path: ["a", ...Array(MAX_BODY_DEPTH - 1).fill("0")],
      message: `nested more than ${MAX_BODY_DEPTH} levels deep`,
    });
    expect(bodyShapeProblem(nested(500_000))?.path).toHaveLength(MAX_BODY_DEPTH);
  });
});
