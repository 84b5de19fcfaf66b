import { beforeAll, describe, expect, it } from "vitest";
import { api, createAccount } from "./helpers.ts";

/**
 * A request with several faults is answered with the first its route checks, in one order for every
 * route (src/api/operation.ts): the path's parameters, the query, the body's Content-Type, the route's
 * middleware (Idempotency-Key), the body. And a JSON body is taken under any Content-Type the API has
 * always taken, none refused for its spelling. Routes declared with OpenAPIHono's `app.openapi()`
 * would check the query before the path, middleware before both, and refuse some JSON Content-Types
 * with a 415 of their own.
 */
describe("the order of a request's checks", () => {
  let key: string;
  beforeAll(async () => {
    ({ key } = await createAccount());
  });

  const firstProblem = (res: { status: number; body: any }) => ({
    status: res.status,
    code: res.body.code,
    path: res.body.details?.[0]?.path,
    error: res.body.error,
  });

  it("checks the path before the query", async () => {
    const res = await api(key, "GET", "/v1/jobs/not-a-uuid?wait=never");
    expect(firstProblem(res)).toMatchObject({ status: 400, code: "INVALID_REQUEST", path: ["path", "id"] });
  });

  it("checks the path before the body's Content-Type", async () => {
    const res = await api(key, "POST", "/v1/files/not-a-uuid/parts", "partNumbers", { "Content-Type": "text/plain" });
    expect(firstProblem(res)).toMatchObject({ status: 400, code: "INVALID_REQUEST", path: ["path", "id"] });
  });

  it("checks the query before the body's Content-Type", async () => {
    const res = await api(key, "POST", "/v1/jobs/validate?probe=maybe", "{}", { "Content-Type": "text/plain" });
    expect(firstProblem(res)).toMatchObject({ status: 400, code: "INVALID_REQUEST", path: ["query", "probe"] });
  });

  it("checks the body's Content-Type before the Idempotency-Key, and the key before the body", async () => {
    const badKey = { "Idempotency-Key": "k".repeat(300) };
    const typeFirst = await api(key, "POST", "/v1/files", "{}", { ...badKey, "Content-Type": "text/plain" });
    expect(firstProblem(typeFirst)).toMatchObject({ status: 400, error: "Content-Type must be application/json" });
    const keyFirst = await api(key, "POST", "/v1/files", { fileName: "../no" }, badKey);
    expect(firstProblem(keyFirst)).toMatchObject({ status: 400, path: ["header", "Idempotency-Key"] });
  });

  for (const contentType of ["application/json;", "application/json ; charset=utf-8", "application/vnd.ffjobs2+json"]) {
    it(`takes a JSON body sent as ${contentType}`, async () => {
      const res = await api(key, "POST", "/v1/files", { fileName: "clip.mp4" }, { "Content-Type": contentType });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    });
  }
});
