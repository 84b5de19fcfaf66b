import { beforeAll, describe, expect, it } from "vitest";
import { api, createAccount, isTerminalJob, mediaUrl, waitForJob } from "./helpers.ts";

/**
 * What clients generated from /openapi.json (openapi-fetch, hey-api, schemathesis) met that the
 * document and the API disagreed on: each case as such a client sends it, and the document's word on it.
 */
let doc: any;
let key: string;
beforeAll(async () => {
  doc = (await api(null, "GET", "/openapi.json")).body;
  key = (await createAccount()).key;
});

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, item]: [string, any]) =>
    Object.entries(item).map(([method, o]: [string, any]) => ({ path, method, o })),
  );

describe("the OpenAPI document against the API", () => {
  it("declares the job list's metadata filter as a deepObject, and a filter sent without it says how", async () => {
    const metadata = doc.paths["/v1/jobs"].get.parameters.find((p: { name: string }) => p.name === "metadata");
    expect(metadata).toMatchObject({ in: "query", style: "deepObject", explode: true });
    const wrong = await api(key, "GET", "/v1/jobs?client=x");
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatch(/^Invalid request: query: .*client/);
    expect(wrong.body.error).toContain("metadata[client]=");
    const right = await api(key, "GET", "/v1/jobs?metadata[client]=x");
    expect(right.status).toBe(200);
  });

  it("labels a query parameter's problem as the query's, not the body's", async () => {
    const res = await api(key, "GET", "/v1/jobs?limit=0");
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^Invalid request: query\.limit: /);
    expect(res.body.details[0].path).toEqual(["query", "limit"]);
  });

  it("has room in its Error schema for the status a 409 carries", async () => {
    const job = await api(key, "POST", "/v1/jobs", {
      binary: "ffprobe",
      inputs: { v: { type: "url", url: mediaUrl("clip.mp4") } },
      ffmpegArgs: ["{{v}}"],
    });
    await waitForJob(key, job.body.id, isTerminalJob);
    const conflict = await api(key, "POST", `/v1/jobs/${job.body.id}/cancel`);
    expect(conflict.status).toBe(409);
    const error = doc.components.schemas.Error;
    for (const field of Object.keys(conflict.body)) expect(Object.keys(error.properties), field).toContain(field);
    expect(conflict.body.status).toBeDefined();
  });

  it("documents the 400 of a malformed id on every operation that takes one, and answers it alike everywhere", async () => {
    const withId = operations().filter(({ o }) =>
      (o.parameters ?? []).some((p: { in: string; name: string }) => p.in === "path" && p.name === "id"),
    );
    expect(withId.length).toBeGreaterThanOrEqual(10);
    for (const { path, method, o } of withId) {
      expect(Object.keys(o.responses), `${method} ${path}`).toContain("400");
      expect(Object.keys(o.responses), `${method} ${path}`).toContain("404");
    }
    // Shaped like a UUID but no job, file or delivery: 404 on all of them; not a UUID at all: 400 on all.
    const noSuch = "00000000-0000-0000-0000-000000000000";
    for (const path of [`/v1/jobs/${noSuch}`, `/v1/files/${noSuch}`])
      expect((await api(key, "GET", path)).status, path).toBe(404);
    expect((await api(key, "POST", `/v1/webhooks/deliveries/${noSuch}/redeliver`)).status).toBe(404);
    for (const [method, path] of [
      ["GET", "/v1/jobs/nope"],
      ["GET", "/v1/files/nope"],
      ["POST", "/v1/webhooks/deliveries/nope/redeliver"],
    ]) {
      const res = await api(key, method, path);
      expect(res.status, path).toBe(400);
      expect(res.body.details[0].path, path).toEqual(["path", "id"]);
    }
  });

  it("reads ?probe as a boolean, refusing what is neither", async () => {
    const body = {
      binary: "ffprobe",
      inputs: { v: { type: "url", url: mediaUrl("clip.mp4") } },
      ffmpegArgs: ["{{v}}"],
    };
    for (const yes of ["true", "1"]) {
      const res = await api(key, "POST", `/v1/jobs/validate?probe=${yes}`, body);
      expect(res.status, yes).toBe(200);
      expect(res.body.inputs?.v, yes).toBeTruthy();
    }
    for (const no of ["false", "0"])
      expect((await api(key, "POST", `/v1/jobs/validate?probe=${no}`, body)).body.inputs, no).toBeUndefined();
    const bad = await api(key, "POST", "/v1/jobs/validate?probe=yes", body);
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].path).toEqual(["query", "probe"]);
  });

  it("states in its schemas the rules the API applies", () => {
    const schemas = doc.components.schemas;
    // A raw job needs exactly one of ffmpegArgs and steps: {} is no valid request in the document either.
    expect(schemas.CreateJobRequest.oneOf).toMatchObject([{ required: ["ffmpegArgs"] }, { required: ["steps"] }]);
    for (const url of [schemas.WebhookTestRequest.properties.url, schemas.CreateJobRequest.properties.webhookUrl]) {
      const scheme = new RegExp(url.pattern);
      expect(["https://a.example", "HTTP://a.example"].every((u) => scheme.test(u))).toBe(true);
      expect(["ftp://a.example", "file:///etc/passwd", "javascript:alert(1)"].some((u) => scheme.test(u))).toBe(false);
    }
    const idempotency = doc.paths["/v1/jobs"].post.parameters.find(
      (p: { name: string }) => p.name === "Idempotency-Key",
    );
    expect(new RegExp(idempotency.schema.pattern).test("order-42")).toBe(true);
    expect(new RegExp(idempotency.schema.pattern).test("has space")).toBe(false);
    const metadata = schemas.Output.properties.metadata;
    expect(metadata.nullable).toBe(true);
    expect(Object.keys(metadata.properties)).toEqual(["format", "durationSeconds", "size", "bitRate", "streams"]);
    expect(Object.keys(metadata.properties.streams.items.properties)).toEqual(
      expect.arrayContaining(["type", "codec", "width", "height", "frameRate", "sampleRate", "channels"]),
    );
  });
});
