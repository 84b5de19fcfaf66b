import { beforeAll, describe, expect, it } from "vitest";
import { api, createAccount, mediaUrl } from "./helpers.ts";

let key: string;
beforeAll(async () => {
  key = (await createAccount()).key;
});

const url = (file: string) => ({ type: "url", url: mediaUrl(file) });

describe("presets at the API", () => {
  it("GET /v1/presets lists them with their parameters as JSON Schema, and GET /v1/presets/{name} one", async () => {
    const list = (await api(key, "GET", "/v1/presets")).body.data;
    expect(list.map((p: any) => p.name)).toEqual(
      expect.arrayContaining(["thumbnail", "web-mp4", "concat", "waveform"]),
    );
    const thumb = (await api(key, "GET", "/v1/presets/thumbnail")).body;
    expect(thumb).toMatchObject({
      binary: "ffmpeg",
      inputs: ["video"],
      outputs: { thumbnail: { fileName: "thumbnail.jpg", contentType: "image/jpeg", kind: "file" } },
    });
    expect(thumb.params.properties.width).toMatchObject({ type: "integer", default: 320 });
    expect((await api(key, "GET", "/v1/presets/nope")).status).toBe(404);
  });

  it("answers 400 at the field: unknown preset, bad parameter, raw arguments in preset mode", async () => {
    const post = (b: unknown) => api(key, "POST", "/v1/jobs", b);
    expect((await post({ mode: "preset", preset: "nope", inputs: { video: url("clip.mp4") } })).body.details).toEqual([
      expect.objectContaining({ path: ["preset"] }),
    ]);
    expect(
      (await post({ mode: "preset", preset: "thumbnail", inputs: { video: url("clip.mp4") }, params: { width: 1 } }))
        .body.details,
    ).toEqual([expect.objectContaining({ path: ["params", "width"] })]);
    const raw = await post({
      mode: "preset",
      preset: "thumbnail",
      inputs: { video: url("clip.mp4") },
      ffmpegArgs: ["-version"],
    });
    expect(raw.status).toBe(400);
    expect(raw.body.details[0].code).toBe("unrecognized_keys");
  });
});
