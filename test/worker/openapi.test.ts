import { describe, expect, it } from "vitest";
import { api } from "./helpers.ts";

describe("GET /openapi.json", () => {
  it("is generated from the request schemas, without auth", async () => {
    const res = await api(null, "GET", "/openapi.json");
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toBe("3.0.3");
    expect(Object.keys(doc.paths).sort()).toEqual([
      "/outputs/{jobId}/{output}/{token}/{file}",
      "/v1/files", "/v1/files/{id}", "/v1/jobs", "/v1/jobs/{id}", "/v1/jobs/{id}/cancel", "/v1/jobs/{id}/events", "/v1/jobs/{id}/result", "/v1/policy", "/v1/presets", "/v1/presets/{name}",
      "/v1/webhooks/deliveries", "/v1/webhooks/deliveries/{id}/redeliver", "/v1/webhooks/secret", "/v1/webhooks/secret/rotate", "/v1/webhooks/test",
    ]);
    expect(doc.paths["/v1/webhooks/test"].post.requestBody.content["application/json"].schema.required).toEqual(["url"]);
    const [create, preset] = doc.paths["/v1/jobs"].post.requestBody.content["application/json"].schema.oneOf;
    expect(preset.required).toEqual(["mode", "preset"]);
    expect(create.oneOf).toEqual([{ required: ["ffmpegArgs"] }, { required: ["steps"] }]);
    expect(create.properties.steps.maxItems).toBe(8);
    expect(create.properties.outputs.additionalProperties.properties.kind.enum).toEqual(["file", "directory"]);
    expect(doc.paths["/outputs/{jobId}/{output}/{token}/{file}"].get.security).toEqual([]);
    expect(create.properties.binary.enum).toEqual(["ffmpeg", "ffprobe"]);
    expect(create.properties.ffmpegArgs.minItems).toBe(1);
    expect(Object.keys(doc.paths["/v1/jobs"].post.responses)).toEqual(expect.arrayContaining(["202", "400", "401", "413"]));
    expect(doc.paths["/v1/jobs"].get.parameters.map((p: { name: string }) => p.name).sort()).toEqual(["cursor", "limit", "status"]);
    expect(doc.paths["/v1/jobs/{id}"].get.parameters.map((p: { name: string }) => p.name)).toEqual(["id", "wait"]);
    expect(doc.paths["/v1/jobs/{id}"].get.parameters[1].schema.maximum).toBe(60);
  });
});
