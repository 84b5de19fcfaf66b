import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { api, countRows, createAccount } from "./helpers.ts";

let key: string;
let otherKey: string;
beforeAll(async () => {
  ({ key } = await createAccount());
  ({ key: otherKey } = await createAccount());
});

const url = { type: "url", url: "https://media.example.com/a.mp4" };

async function expectInvalid(
  body: unknown,
  detail: { path: string[]; code: string },
  headers?: Record<string, string>,
) {
  const before = await countRows("jobs");
  const res = await api(key, "POST", "/v1/jobs", body, headers);
  expect(res.status).toBe(400);
  expect(res.body.code).toBe("INVALID_REQUEST");
  expect(res.body.error).toEqual(expect.any(String));
  expect(res.body.details).toContainEqual({ path: detail.path, message: expect.any(String), code: detail.code });
  for (const d of res.body.details) expect(d.path.every((p: unknown) => typeof p === "string")).toBe(true);
  expect(await countRows("jobs")).toBe(before);
  return res.body;
}

describe("POST /v1/jobs validation", () => {
  it("points a missing ffmpegArgs at [ffmpegArgs]", async () => {
    await expectInvalid({ inputs: {} }, { path: ["ffmpegArgs"], code: "invalid_type" });
  });

  it("requires at least one argument", async () => {
    await expectInvalid({ ffmpegArgs: [] }, { path: ["ffmpegArgs"], code: "too_small" });
  });

  it("uses string indices in array paths", async () => {
    await expectInvalid({ ffmpegArgs: ["-i", 3] }, { path: ["ffmpegArgs", "1"], code: "invalid_type" });
  });

  it("refuses input and inputs together with code custom", async () => {
    await expectInvalid(
      { input: [url], inputs: { a: url }, ffmpegArgs: ["-i", "{{a}}", "-f", "null", "-"] },
      { path: ["input"], code: "custom" },
    );
  });

  it("refuses a placeholder that names nothing, at its argument", async () => {
    await expectInvalid(
      { inputs: { a: url }, ffmpegArgs: ["-i", "{{a}}", "-vf", "{{b}}"] },
      { path: ["ffmpegArgs", "3"], code: "custom" },
    );
  });

  it("refuses a declared output that is never referenced", async () => {
    await expectInvalid(
      { inputs: { a: url }, outputs: { out: { fileName: "o.mp4" } }, ffmpegArgs: ["-i", "{{a}}", "-f", "null", "-"] },
      { path: ["outputs", "out"], code: "custom" },
    );
  });

  it("refuses unsafe output file names, bad names and non-http inputs", async () => {
    await expectInvalid(
      { outputs: { o: { fileName: "../evil.mp4" } }, ffmpegArgs: ["{{o}}"] },
      { path: ["outputs", "o", "fileName"], code: "invalid_format" },
    );
    await expectInvalid(
      { inputs: { "bad-name": url }, ffmpegArgs: ["x"] },
      { path: ["inputs", "bad-name"], code: "invalid_key" },
    );
    await expectInvalid(
      { inputs: { a: { type: "url", url: "file:///etc/passwd" } }, ffmpegArgs: ["{{a}}"] },
      { path: ["inputs", "a", "url"], code: "invalid_format" },
    );
    await expectInvalid(
      { inputs: { a: { type: "ftp", url: "x" } }, ffmpegArgs: ["{{a}}"] },
      { path: ["inputs", "a", "type"], code: "invalid_union" },
    );
  });

  it("refuses unknown fields and a wrong binary", async () => {
    await expectInvalid({ ffmpegArgs: ["-version"], webhookURL: "https://x" }, { path: [], code: "unrecognized_keys" });
    await expectInvalid({ binary: "sh", ffmpegArgs: ["-c", "id"] }, { path: ["binary"], code: "invalid_value" });
  });

  it("refuses asset inputs that do not exist, belong to another account, or have no bytes yet", async () => {
    const missing = crypto.randomUUID();
    await expectInvalid(
      { inputs: { a: { type: "asset", assetId: missing } }, ffmpegArgs: ["-i", "{{a}}", "-f", "null", "-"] },
      { path: ["inputs", "a", "assetId"], code: "custom" },
    );
    const foreign = (await api(otherKey, "POST", "/v1/files", { fileName: "x.mp4", contentType: "video/mp4" })).body;
    await env.BUCKET.put(`uploads/${foreign.id}/x.mp4`, "bytes");
    await expectInvalid(
      { input: [{ type: "asset", assetId: foreign.id }], ffmpegArgs: ["-i", "{{input0}}", "-f", "null", "-"] },
      { path: ["input", "0", "assetId"], code: "custom" },
    );
    const pending = (await api(key, "POST", "/v1/files", { fileName: "p.mp4", contentType: "video/mp4" })).body;
    const body = await expectInvalid(
      { inputs: { p: { type: "asset", assetId: pending.id } }, ffmpegArgs: ["-i", "{{p}}", "-f", "null", "-"] },
      { path: ["inputs", "p", "assetId"], code: "custom" },
    );
    expect(body.details[0].message).toMatch(/not ready/);
  });

  it("answers broken JSON and non-JSON bodies with INVALID_REQUEST", async () => {
    await expectInvalid('{"ffmpegArgs": [', { path: [], code: "invalid_json" });
    await expectInvalid("ffmpegArgs=-version", { path: [], code: "invalid_type" }, { "Content-Type": "text/plain" });
  });

  it("answers bodies over 1 MiB with 413", async () => {
    const res = await api(key, "POST", "/v1/jobs", { ffmpegArgs: ["x".repeat(1024 * 1024 + 10)] });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: expect.any(String), code: "PAYLOAD_TOO_LARGE" });
  });

  it("rejects malformed ids in paths and unknown query parameters", async () => {
    expect((await api(key, "GET", "/v1/jobs/not-a-uuid")).body.details[0].path).toEqual(["path", "id"]);
    expect((await api(key, "GET", "/v1/jobs?limit=0")).body.details[0].path).toEqual(["query", "limit"]);
    expect((await api(key, "GET", "/v1/jobs?limit=101")).status).toBe(400);
    expect((await api(key, "GET", "/v1/jobs?status=done")).body.details[0].path).toEqual(["query", "status"]);
    expect((await api(key, "GET", "/v1/jobs?cursor=garbage")).body.details[0]).toMatchObject({
      path: ["query", "cursor"],
      code: "custom",
    });
  });

  it("answers unknown routes with the error envelope", async () => {
    expect(await api(key, "GET", "/v1/nope")).toMatchObject({ status: 404, body: { code: "NOT_FOUND" } });
  });
});

describe("POST /v1/jobs validation: multi-step jobs", () => {
  const step = (...ffmpegArgs: string[]) => ({ ffmpegArgs });
  it("refuses ffmpegArgs and steps together, at [steps]", async () => {
    await expectInvalid(
      {
        inputs: { a: url },
        ffmpegArgs: ["-i", "{{a}}", "-f", "null", "-"],
        steps: [step("-i", "{{a}}", "-f", "null", "-")],
      },
      { path: ["steps"], code: "custom" },
    );
  });

  it("takes 1 to 8 steps", async () => {
    await expectInvalid({ steps: [] }, { path: ["steps"], code: "too_small" });
    await expectInvalid(
      { inputs: { a: url }, steps: Array.from({ length: 9 }, () => step("-i", "{{a}}", "-f", "null", "-")) },
      { path: ["steps"], code: "too_big" },
    );
  });

  it("points a step's bad argument at [steps, k, ffmpegArgs, i]", async () => {
    const body = {
      inputs: { a: url },
      steps: [
        step("-i", "{{a}}", "-f", "null", "-"),
        step("-i", "{{a}}", "-vf", "movie=/etc/passwd", "-f", "null", "-"),
      ],
    };
    const res = await expectInvalid(body, { path: ["steps", "1", "ffmpegArgs", "3"], code: "custom" });
    expect(res.details.find((d: any) => d.path[1] === "1").message).toMatch(/movie/);
  });

  it("refuses placeholders that name nothing, and scratch names that clash", async () => {
    await expectInvalid(
      { inputs: { a: url }, steps: [step("-i", "{{nope}}", "-f", "null", "-")] },
      { path: ["steps", "0", "ffmpegArgs", "1"], code: "custom" },
    );
    await expectInvalid(
      { inputs: { a: url }, scratch: { a: "x.wav" }, steps: [step("-i", "{{a}}", "-f", "null", "-")] },
      { path: ["scratch", "a"], code: "custom" },
    );
  });

  it("needs every output written by some step, and -passlogfile to be a scratch file", async () => {
    await expectInvalid(
      { inputs: { a: url }, outputs: { out: { fileName: "o.mp4" } }, steps: [step("-i", "{{a}}", "-f", "null", "-")] },
      { path: ["outputs", "out"], code: "custom" },
    );
    await expectInvalid(
      { inputs: { a: url }, steps: [step("-i", "{{a}}", "-pass", "1", "-passlogfile", "{{a}}", "-f", "null", "-")] },
      { path: ["steps", "0", "ffmpegArgs", "5"], code: "custom" },
    );
  });

  it("lets a later step read an earlier step's output, but a one-command job cannot read its own", async () => {
    const outputs = { out: { fileName: "o.mp4" } };
    const ok = await api(key, "POST", "/v1/jobs", {
      inputs: { a: url },
      outputs,
      steps: [step("-i", "{{a}}", "{{out}}"), { binary: "ffprobe", ffmpegArgs: ["{{out}}"] }],
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(202);
    await expectInvalid(
      { inputs: { a: url }, outputs, ffmpegArgs: ["-i", "{{out}}", "{{out}}"] },
      { path: ["ffmpegArgs", "1"], code: "custom" },
    );
  });
});

describe("POST /v1/jobs validation: directory outputs and times", () => {
  it("takes % patterns only in directory outputs, and {{dir/file}} only for directory outputs", async () => {
    await expectInvalid(
      { inputs: { a: url }, outputs: { f: { fileName: "frame_%03d.png" } }, ffmpegArgs: ["-i", "{{a}}", "{{f}}"] },
      { path: ["outputs", "f", "fileName"], code: "custom" },
    );
    await expectInvalid(
      { inputs: { a: url }, outputs: { f: { fileName: "a.mp4" } }, ffmpegArgs: ["-i", "{{a}}", "{{f/b.mp4}}"] },
      { path: ["ffmpegArgs", "2"], code: "custom" },
    );
    await expectInvalid(
      {
        inputs: { a: url },
        outputs: { d: { kind: "directory", fileName: "i.m3u8" } },
        ffmpegArgs: ["-i", "{{a}}", "-f", "hls", "-hls_segment_filename", "/tmp/s_%d.ts", "{{d}}"],
      },
      { path: ["ffmpegArgs", "5"], code: "custom" },
    );
    const ok = await api(key, "POST", "/v1/jobs", {
      inputs: { a: url },
      outputs: { d: { kind: "directory", fileName: "frame_%03d.png" } },
      ffmpegArgs: ["-i", "{{a}}", "{{d}}"],
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(202);
  });

  it("takes {{input@P%}} only as -ss, of an input, up to 100 %", async () => {
    await expectInvalid(
      { inputs: { a: url }, ffmpegArgs: ["-ss", "{{a@101%}}", "-i", "{{a}}", "-f", "null", "-"] },
      { path: ["ffmpegArgs", "1"], code: "custom" },
    );
    await expectInvalid(
      { inputs: { a: url }, ffmpegArgs: ["-ss", "{{b@50%}}", "-i", "{{a}}", "-f", "null", "-"] },
      { path: ["ffmpegArgs", "1"], code: "custom" },
    );
    await expectInvalid(
      { inputs: { a: url }, ffmpegArgs: ["-t", "{{a@50%}}", "-i", "{{a}}", "-f", "null", "-"] },
      { path: ["ffmpegArgs", "1"], code: "custom" },
    );
  });
});

describe("POST /v1/jobs: errors that say what to do", () => {
  it("a leading binary name: drop it (and the top-level error names that first problem)", async () => {
    const body = await expectInvalid(
      { inputs: { a: url }, ffmpegArgs: ["ffmpeg", "-i", "{{a}}", "-f", "null", "-"] },
      { path: ["ffmpegArgs", "0"], code: "custom" },
    );
    expect(body.details[0].message).toMatch(/drop the binary name/);
    expect(body.error).toMatch(/^Invalid request: ffmpegArgs\.0: drop the binary name/);
    await expectInvalid(
      { inputs: { a: url }, binary: "ffprobe", ffmpegArgs: ["/usr/bin/ffprobe", "{{a}}"] },
      { path: ["ffmpegArgs", "0"], code: "custom" },
    );
  });

  it("an output name ffmpeg cannot pick a format from: 400 at its fileName, unless -f says the format", async () => {
    for (const fileName of ["out", "out.xyz"]) {
      const body = await expectInvalid(
        { inputs: { a: url }, outputs: { o: { fileName } }, ffmpegArgs: ["-i", "{{a}}", "{{o}}"] },
        { path: ["outputs", "o", "fileName"], code: "custom" },
      );
      expect(body.details[0].message).toMatch(/no extension ffmpeg can pick a format from/);
    }
    const ok = await api(key, "POST", "/v1/jobs", {
      inputs: { a: url },
      outputs: { o: { fileName: "out" } },
      ffmpegArgs: ["-i", "{{a}}", "-f", "matroska", "{{o}}"],
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(202);
  });

  it("an .m3u8 file output (HLS by its extension) must be a directory output; inputs are bounded in the map form too", async () => {
    const body = await expectInvalid(
      { inputs: { a: url }, outputs: { o: { fileName: "x.m3u8" } }, ffmpegArgs: ["-i", "{{a}}", "{{o}}"] },
      { path: ["outputs", "o", "fileName"], code: "custom" },
    );
    expect(body.details[0].message).toMatch(/directory/);
    const many = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`i${i}`, url]));
    await expectInvalid(
      { inputs: many, ffmpegArgs: ["-i", "{{i0}}", "-f", "null", "-"] },
      { path: ["inputs"], code: "custom" },
    );
  });

  it("a private or loopback URL input: 400 at its URL, naming ALLOWED_PRIVATE_HOSTS", async () => {
    for (const target of [
      "http://10.0.0.1/a.mp4",
      "http://169.254.169.254/latest",
      "http://[::1]/a.mp4",
      "http://media.localhost/a.mp4",
    ]) {
      const body = await expectInvalid(
        { inputs: { a: { type: "url", url: target } }, ffmpegArgs: ["-i", "{{a}}", "-f", "null", "-"] },
        { path: ["inputs", "a", "url"], code: "custom" },
      );
      expect(body.details[0].message).toMatch(/private or local address.*ALLOWED_PRIVATE_HOSTS/);
    }
    await expectInvalid(
      {
        input: [{ type: "url", url: "http://192.168.1.2/a.mp4" }],
        ffmpegArgs: ["-i", "{{input0}}", "-f", "null", "-"],
      },
      { path: ["input", "0", "url"], code: "custom" },
    );
  });
});
