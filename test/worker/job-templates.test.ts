import { beforeAll, describe, expect, it } from "vitest";
import { api, createAccount, mediaUrl } from "./helpers.ts";

/*
 * Job templates through the API in the Worker's runtime: kept by name, versioned, run with values, and
 * every value checked again as the job it makes, so a variable never brings in what the policy refuses.
 */
let key: string;
let otherKey: string;
beforeAll(async () => {
  ({ key } = await createAccount());
  ({ key: otherKey } = await createAccount());
});

const scaleTemplate = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  description: "A clip scaled down",
  variables: {
    src: { type: "url", description: "the video" },
    height: { type: "integer", default: 240, minimum: 64, maximum: 2160 },
    filter: { type: "string", default: "hflip" },
    label: { type: "string", default: "none" },
  },
  job: {
    inputs: { video: { type: "url", url: "{{src}}" } },
    outputs: { small: { fileName: "small-{{height}}.mp4" } },
    ffmpegArgs: ["-i", "{{video}}", "-vf", "scale=-2:{{height}},{{filter}}", "{{small}}"],
    metadata: { label: "{{label}}" },
  },
  ...extra,
});
const run = (template: string, vars: Record<string, unknown>, extra = {}) =>
  api(key, "POST", "/v1/jobs", { template, vars, ...extra });

describe("job templates", () => {
  it("keeps a template, runs a job from it with values, and the job says which version it ran", async () => {
    const created = await api(key, "POST", "/v1/templates", scaleTemplate("scale-a"));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ name: "scale-a", version: 1, variables: { height: { default: 240 } } });

    const job = await run("scale-a", { src: mediaUrl("clip.mp4"), height: "360", label: "cat" });
    expect(job.status, JSON.stringify(job.body)).toBe(202);
    const view = (await api(key, "GET", `/v1/jobs/${job.body.id}`)).body;
    expect(view.template).toEqual({ name: "scale-a", version: 1 });
    expect(view.ffmpegArgs).toEqual(["-i", "{{video}}", "-vf", "scale=-2:360,hflip", "{{small}}"]);
    expect(view.inputs.video.url).toBe(mediaUrl("clip.mp4"));
    expect(view.outputDeclarations.small.fileName).toBe("small-360.mp4");
    expect(view.metadata).toEqual({ label: "cat" });

    // A new version: the job made from version 1 keeps what it ran; version 1 can still be read and run.
    const v2 = await api(key, "PUT", "/v1/templates/scale-a", {
      ...scaleTemplate("x"),
      name: undefined,
      variables: { ...scaleTemplate("x").variables, filter: { type: "string", default: "vflip" } },
    });
    expect(v2.status, JSON.stringify(v2.body)).toBe(200);
    expect(v2.body.version).toBe(2);
    expect((await api(key, "GET", `/v1/jobs/${job.body.id}`)).body.ffmpegArgs[3]).toBe("scale=-2:360,hflip");
    expect((await api(key, "GET", "/v1/templates/scale-a?version=1")).body.variables.filter.default).toBe("hflip");
    const again = await run("scale-a", { src: mediaUrl("clip.mp4") });
    expect((await api(key, "GET", `/v1/jobs/${again.body.id}`)).body).toMatchObject({
      template: { name: "scale-a", version: 2 },
      ffmpegArgs: ["-i", "{{video}}", "-vf", "scale=-2:240,vflip", "{{small}}"],
    });
    const old = await run("scale-a", { src: mediaUrl("clip.mp4") }, { version: 1 });
    expect((await api(key, "GET", `/v1/jobs/${old.body.id}`)).body.template).toEqual({ name: "scale-a", version: 1 });

    const listed = await api(key, "GET", "/v1/templates");
    expect(listed.body.data).toContainEqual(expect.objectContaining({ name: "scale-a", version: 2 }));
    expect(listed.body.data[0].job).toBeUndefined();
  });

  it("refuses a value the policy would refuse in a raw job: -f lavfi, a movie= filter", async () => {
    await api(key, "POST", "/v1/templates", scaleTemplate("scale-b"));
    const movie = await run("scale-b", { src: mediaUrl("clip.mp4"), filter: "movie=/etc/passwd" });
    expect(movie.status).toBe(400);
    expect(movie.body.details[0].path).toEqual(["ffmpegArgs", "3"]);

    const format = await api(key, "POST", "/v1/templates", {
      name: "format-b",
      variables: { fmt: { type: "string", default: "mp4" }, src: { type: "url" } },
      job: {
        inputs: { video: { type: "url", url: "{{src}}" } },
        outputs: { out: { fileName: "out.bin" } },
        ffmpegArgs: ["-f", "{{fmt}}", "-i", "{{video}}", "-f", "mp4", "{{out}}"],
      },
    });
    expect(format.status, JSON.stringify(format.body)).toBe(201);
    const lavfi = await run("format-b", { src: mediaUrl("clip.mp4"), fmt: "lavfi" });
    expect(lavfi.status).toBe(400);
    expect(lavfi.body.details).toContainEqual(expect.objectContaining({ path: ["ffmpegArgs", "1"] }));
    const ok = await run("format-b", { src: mediaUrl("clip.mp4") });
    expect(ok.status, JSON.stringify(ok.body)).toBe(202);
  });

  it("checks the values against their variables", async () => {
    await api(key, "POST", "/v1/templates", scaleTemplate("scale-c"));
    const cases: [Record<string, unknown>, string[], RegExp][] = [
      [{}, ["vars", "src"], /required/],
      [{ src: "file:///etc/passwd" }, ["vars", "src"], /http or https/],
      [{ src: mediaUrl("clip.mp4"), height: 10 }, ["vars", "height"], /at least 64/],
      [{ src: mediaUrl("clip.mp4"), height: 300.5 }, ["vars", "height"], /integer/],
      [{ src: mediaUrl("clip.mp4"), nope: 1 }, ["vars", "nope"], /no such variable/],
      [{ src: mediaUrl("clip.mp4"), constructor: "x" }, ["vars", "constructor"], /no such variable/],
      [{ src: mediaUrl("clip.mp4"), filter: "{{video}}" }, ["vars", "filter"], /\{\{ or \}\}/],
    ];
    for (const [vars, path, message] of cases) {
      const got = await run("scale-c", vars);
      expect(got.status, JSON.stringify(vars)).toBe(400);
      expect(got.body.details).toContainEqual(
        expect.objectContaining({ path, message: expect.stringMatching(message) }),
      );
    }
    const missing = await run("no-such-template", {});
    expect(missing.body.details[0]).toMatchObject({ path: ["template"] });
  });

  it("checks a template as the job it makes, and its shape", async () => {
    const badDefault = await api(key, "POST", "/v1/templates", {
      ...scaleTemplate("scale-d"),
      variables: { ...scaleTemplate("x").variables, filter: { type: "string", default: "movie=x.mp4" } },
    });
    expect(badDefault.status).toBe(400);
    expect(badDefault.body.details[0].path).toEqual(["job", "ffmpegArgs", "3"]);

    const shapes: [Record<string, unknown>, string[]][] = [
      [
        { variables: { ...scaleTemplate("x").variables, unused: { type: "string", default: "a" } } },
        ["variables", "unused"],
      ],
      [
        { variables: { ...scaleTemplate("x").variables, video: { type: "string", default: "a" } } },
        ["variables", "video"],
      ],
      [
        { job: { ...scaleTemplate("x").job, metadata: { label: "{{label}}", other: "{{nobody}}" } } },
        ["job", "metadata", "other"],
      ],
      [
        { variables: { ...scaleTemplate("x").variables, height: { type: "integer", default: "tall" } } },
        ["variables", "height", "default"],
      ],
    ];
    for (const [change, path] of shapes) {
      const got = await api(key, "POST", "/v1/templates", { ...scaleTemplate("scale-e"), ...change });
      expect(got.status, JSON.stringify(change)).toBe(400);
      expect(got.body.details).toContainEqual(expect.objectContaining({ path }));
    }
    const proto = await api(key, "POST", "/v1/templates", {
      ...scaleTemplate("scale-f"),
      variables: JSON.parse('{"__proto__": {"type": "string"}}'),
    });
    expect(proto.status).toBe(400);
    const ctor = await api(key, "POST", "/v1/templates", {
      ...scaleTemplate("scale-f"),
      variables: { constructor: { type: "string" } },
    });
    expect(ctor.status).toBe(400);
  });

  it("takes an input in place of the template's own, its URL variable then not needed", async () => {
    await api(key, "POST", "/v1/templates", scaleTemplate("scale-h"));
    const sent = { video: { type: "url", url: mediaUrl("clip.mp4") } };
    const job = await api(key, "POST", "/v1/jobs", { template: "scale-h", inputs: sent });
    expect(job.status, JSON.stringify(job.body)).toBe(202);
    expect((await api(key, "GET", `/v1/jobs/${job.body.id}`)).body.inputs).toEqual(sent);
    const stranger = await api(key, "POST", "/v1/jobs", { template: "scale-h", inputs: { nope: sent.video } });
    expect(stranger.body.details).toContainEqual(expect.objectContaining({ path: ["inputs", "nope"] }));
  });

  it("runs a preset template with typed parameters, and dry-runs one", async () => {
    const created = await api(key, "POST", "/v1/templates", {
      name: "poster",
      variables: { src: { type: "url" }, at: { type: "number", default: 50, minimum: 0, maximum: 99 } },
      job: {
        mode: "preset",
        preset: "thumbnail",
        inputs: { video: { type: "url", url: "{{src}}" } },
        params: { percent: "{{at}}" },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const dry = await api(key, "POST", "/v1/jobs/validate", {
      template: "poster",
      vars: { src: mediaUrl("clip.mp4"), at: 25 },
    });
    expect(dry.body).toMatchObject({ valid: true });
    const job = await run("poster", { src: mediaUrl("clip.mp4"), at: "25" });
    expect(job.status, JSON.stringify(job.body)).toBe(202);
    expect((await api(key, "GET", `/v1/jobs/${job.body.id}`)).body).toMatchObject({
      preset: "thumbnail",
      params: { percent: 25 },
    });
  });

  it("keeps one account's templates from another's, refuses a taken name, deletes every version", async () => {
    await api(key, "POST", "/v1/templates", scaleTemplate("scale-g"));
    expect((await api(key, "POST", "/v1/templates", scaleTemplate("scale-g"))).body.code).toBe("TEMPLATE_EXISTS");
    expect((await api(otherKey, "GET", "/v1/templates/scale-g")).status).toBe(404);
    expect(
      (await api(otherKey, "PUT", "/v1/templates/scale-g", { ...scaleTemplate("x"), name: undefined })).status,
    ).toBe(404);
    expect((await api(otherKey, "DELETE", "/v1/templates/scale-g")).status).toBe(404);
    const stranger = await api(otherKey, "POST", "/v1/jobs", {
      template: "scale-g",
      vars: { src: mediaUrl("clip.mp4") },
    });
    expect(stranger.body.details[0]).toMatchObject({ path: ["template"] });
    expect((await api(otherKey, "GET", "/v1/templates")).body.data).toEqual([]);

    expect((await api(key, "DELETE", "/v1/templates/scale-g")).status).toBe(204);
    expect((await api(key, "GET", "/v1/templates/scale-g")).status).toBe(404);
    expect((await run("scale-g", { src: mediaUrl("clip.mp4") })).status).toBe(400);
  });

  it("holds what an attacker tried: growth by filling, size, list inputs, repeated problems, misplaced bounds", async () => {
    // 818 {{v}} in one argument: 4,090 characters written, 1.7 M filled with 2,048 each; refused unbuilt.
    const grow = await api(key, "POST", "/v1/templates", {
      name: "grow",
      variables: { v: { type: "string", default: "" }, src: { type: "url" } },
      job: {
        inputs: { video: { type: "url", url: "{{src}}" } },
        ffmpegArgs: ["-i", "{{video}}", "-metadata", `t=${"{{v}}".repeat(818)}`, "-f", "null", "-"],
      },
    });
    expect(grow.status, JSON.stringify(grow.body)).toBe(201);
    const grown = await run("grow", { src: mediaUrl("clip.mp4"), v: "A".repeat(2048) });
    expect(grown.status).toBe(400);
    expect(grown.body.details[0]).toMatchObject({
      path: ["job", "ffmpegArgs", "3"],
      message: expect.stringMatching(/more than 4096/),
    });

    const big = await api(key, "POST", "/v1/templates", {
      ...scaleTemplate("big"),
      job: { ...scaleTemplate("x").job, metadata: { label: "{{label}}", pad: "p".repeat(70_000) } },
    });
    expect(big.status).toBe(400);
    expect(big.body.details[0].message).toMatch(/more than 65536/);

    const listed = await api(key, "POST", "/v1/templates", {
      name: "listed",
      variables: { src: { type: "url" } },
      job: { input: [{ type: "url", url: "{{src}}" }], ffmpegArgs: ["-i", "{{input0}}", "-f", "null", "-"] },
    });
    expect(listed.status, JSON.stringify(listed.body)).toBe(201);
    expect((await run("listed", { src: mediaUrl("clip.mp4") })).status).toBe(202);
    const clash = await api(key, "POST", "/v1/templates", {
      name: "listed-clash",
      variables: { input0: { type: "string", default: "x" } },
      job: { input: [{ type: "url", url: mediaUrl("clip.mp4") }], ffmpegArgs: ["-i", "{{input0}}", "-f", "null", "-"] },
    });
    expect(clash.body.details).toContainEqual(expect.objectContaining({ path: ["variables", "input0"] }));

    const repeated = await api(key, "POST", "/v1/templates", {
      ...scaleTemplate("rep"),
      job: { ...scaleTemplate("x").job, webhookUrl: "{{nobody}}".repeat(5000) },
    });
    expect(repeated.status).toBe(400);
    expect(repeated.body.details.filter((d: { path: string[] }) => d.path.join(".") === "job.webhookUrl")).toHaveLength(
      1,
    );

    for (const variable of [
      { type: "integer", enum: ["1"] },
      { type: "string", minimum: 1 },
      { type: "number", minimum: 5, maximum: 1 },
    ]) {
      const got = await api(key, "POST", "/v1/templates", {
        ...scaleTemplate("bounds"),
        variables: { ...scaleTemplate("x").variables, height: variable },
      });
      expect(got.status, JSON.stringify(variable)).toBe(400);
    }
    for (const height of ["0x100", " 300 ", "Infinity"]) {
      expect((await run("scale-a", { src: mediaUrl("clip.mp4"), height })).status, height).toBe(400);
    }
  });
});
