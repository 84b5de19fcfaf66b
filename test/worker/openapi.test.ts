import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { api } from "./helpers.ts";

describe("GET /openapi.json", () => {
  it("is generated from the request schemas, served without auth, with named schemas and ids", async () => {
    const res = await api(null, "GET", "/openapi.json");
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toBe("3.0.3");
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/v1/jobs",
        "/v1/jobs/{id}",
        "/v1/jobs/{id}/cancel",
        "/v1/jobs/{id}/events",
        "/v1/jobs/{id}/result",
        "/v1/files",
        "/v1/files/{id}",
        "/v1/policy",
        "/v1/presets",
        "/v1/presets/{name}",
        "/v1/templates",
        "/v1/templates/{name}",
        "/v1/webhooks/test",
        "/outputs/{jobId}/{output}/{token}/{file}",
      ]),
    );
    const operations = Object.values(doc.paths).flatMap((item: any) => Object.values(item)) as any[];
    const ids = operations.map((o) => o.operationId);
    expect(ids.every((id) => typeof id === "string")).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const schemas = doc.components.schemas;
    const create = schemas.CreateJobRequest;
    expect(doc.paths["/v1/jobs"].post.requestBody.content["application/json"].schema.oneOf).toEqual([
      { $ref: "#/components/schemas/CreateJobRequest" },
      { $ref: "#/components/schemas/PresetJobRequest" },
      { $ref: "#/components/schemas/TemplateJobRequest" },
    ]);
    expect(schemas.TemplateJobRequest.required).toEqual(["template"]);
    // A variable's own fields named `default` and `description` are properties, not keywords.
    expect(Object.keys(schemas.CreateTemplateRequest.properties.variables.additionalProperties.properties)).toEqual(
      expect.arrayContaining(["type", "default", "description"]),
    );
    expect(schemas.PresetJobRequest.required).toEqual(["mode", "preset"]);
    expect(create.properties.steps.maxItems).toBe(8);
    expect(create.properties.outputs.additionalProperties.properties.kind.enum).toEqual(["file", "directory"]);
    expect(create.properties.binary.enum).toEqual(["ffmpeg", "ffprobe"]);
    expect(create.properties.ffmpegArgs.minItems).toBe(1);
    expect(create.example.ffmpegArgs).toContain("{{video}}");
    expect(schemas.Job.properties.mode.enum).toEqual(["preset", "raw"]);
    expect(doc.paths["/outputs/{jobId}/{output}/{token}/{file}"].get.security).toEqual([]);
    // Every authenticated operation documents 401, 429 and 500 with the error envelope.
    for (const o of operations.filter((o) => !o.security)) {
      for (const status of ["401", "429", "500"])
        expect(o.responses[status].content["application/json"].schema, o.operationId).toEqual({
          $ref: "#/components/schemas/Error",
        });
    }
    expect(Object.keys(doc.paths["/v1/jobs"].post.responses)).toEqual(
      expect.arrayContaining(["200", "202", "400", "401", "409", "413", "429"]),
    );
    expect(doc.paths["/v1/jobs"].get.parameters.map((p: { name: string }) => p.name).sort()).toEqual([
      "cursor",
      "limit",
      "metadata",
      "status",
    ]);
    expect(doc.paths["/v1/jobs/{id}"].get.parameters.map((p: { name: string }) => p.name)).toEqual(["id", "wait"]);
  });
});

describe("GET /docs", () => {
  it("serves a page that renders /openapi.json, without auth", async () => {
    const res = await exports.default.fetch(new Request("https://ffjobs.test/docs"));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    expect(await res.text()).toContain('fetch("/openapi.json")');
  });
});
