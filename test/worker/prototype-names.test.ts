import { beforeAll, describe, expect, it } from "vitest";
import { api, countRows, createAccount } from "./helpers.ts";

/**
 * Names a client chooses that are also the names of `Object.prototype`'s members: read from
 * a plain object they are found without being declared (`{{toString}}` is a function), written to one
 * they set its prototype (`__proto__` silently vanished). Each is refused with a 400 that names it,
 * at creation and at /validate alike, and nothing is stored.
 */
let key: string;
beforeAll(async () => {
  ({ key } = await createAccount());
});

const url = { type: "url", url: "https://media.example.com/a.mp4" };
const PROTOTYPE_NAMES = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"];

async function refused(body: string, path: string[]) {
  for (const route of ["/v1/jobs", "/v1/jobs/validate"]) {
    const before = await countRows("jobs");
    const res = await api(key, "POST", route, body);
    expect(res.status, `${route} ${body}: ${JSON.stringify(res.body)}`).toBe(route === "/v1/jobs" ? 400 : 200);
    const problems = route === "/v1/jobs" ? res.body.details : (res.body.problems ?? res.body.details);
    expect(JSON.stringify(problems), `${route} ${body}`).toContain(JSON.stringify(path).slice(1, -1));
    expect(await countRows("jobs")).toBe(before);
  }
}

describe("names that are Object.prototype's members", () => {
  for (const name of PROTOTYPE_NAMES) {
    it(`refuses "${name}" as a placeholder, an input, an output, a scratch file and a metadata key`, async () => {
      // Raw JSON: a "__proto__" key written by JSON.stringify from an object literal would be lost before it was sent.
      await refused(
        `{"inputs":{"a":${JSON.stringify(url)}},"outputs":{"out":{"fileName":"o.mp4"}},"ffmpegArgs":["-i","{{${name}}}","{{out}}"]}`,
        ["ffmpegArgs", "1"],
      );
      await refused(
        `{"inputs":{"${name}":${JSON.stringify(url)}},"outputs":{"out":{"fileName":"o.mp4"}},"ffmpegArgs":["-i","{{${name}}}","{{out}}"]}`,
        ["inputs", name],
      );
      await refused(
        `{"inputs":{"a":${JSON.stringify(url)}},"outputs":{"${name}":{"fileName":"o.mp4"}},"ffmpegArgs":["-i","{{a}}","{{${name}}}"]}`,
        ["outputs", name],
      );
      await refused(
        `{"inputs":{"a":${JSON.stringify(url)}},"outputs":{"out":{"fileName":"o.mp4"}},"scratch":{"${name}":"s.txt"},"ffmpegArgs":["-i","{{a}}","{{out}}"]}`,
        ["scratch", name],
      );
      await refused(
        `{"inputs":{"a":${JSON.stringify(url)}},"outputs":{"out":{"fileName":"o.mp4"}},"metadata":{"${name}":"x"},"ffmpegArgs":["-i","{{a}}","{{out}}"]}`,
        ["metadata", name],
      );
      await refused(
        `{"inputs":{"a":{"type":"job","jobId":"${crypto.randomUUID()}","output":"${name}"}},"outputs":{"out":{"fileName":"o.mp4"}},"ffmpegArgs":["-i","{{a}}","{{out}}"]}`,
        ["inputs", "a", "output"],
      );
    });
  }

  it("refuses a key __proto__ anywhere in any JSON body, and as a job list's metadata filter, instead of dropping it", async () => {
    const file = await api(
      key,
      "POST",
      "/v1/files",
      `{"fileName":"a.mp4","contentType":"video/mp4","__proto__":{"x":1}}`,
    );
    expect(file.status, JSON.stringify(file.body)).toBe(400);
    expect(file.body.details).toContainEqual(expect.objectContaining({ path: ["__proto__"] }));
    const webhook = await api(key, "POST", "/v1/webhooks/test", `{"url":"https://hooks.example.com/x","__proto__":{}}`);
    expect(webhook.status, JSON.stringify(webhook.body)).toBe(400);
    for (const query of ["metadata[__proto__]=x", "metadata[constructor]=x", "__proto__=x"]) {
      const list = await api(key, "GET", `/v1/jobs?${query}`);
      expect(list.status, `${query}: ${JSON.stringify(list.body)}`).toBe(400);
      expect(list.body.details[0].message).toMatch(/Object\.prototype/);
    }
  });
});

describe("file names whose extension is an Object.prototype member", () => {
  it("are plain bytes, as uploads and as outputs, not a 500 or a job that can never end", async () => {
    for (const name of ["constructor", "__proto__", "tostring"]) {
      const file = await api(key, "POST", "/v1/files", { fileName: `a.${name}` });
      expect(file.status, JSON.stringify(file.body)).toBe(201);
      expect(file.body.contentType).toBe("application/octet-stream");
      const job = await api(key, "POST", "/v1/jobs", {
        inputs: { a: url },
        outputs: { o: { fileName: `o.${name}` } },
        ffmpegArgs: ["-i", "{{a}}", "-f", "mp4", "{{o}}"],
      });
      expect(job.status, JSON.stringify(job.body)).toBe(202);
      const shown = await api(key, "GET", `/v1/jobs/${job.body.id}`);
      expect(shown.body.outputDeclarations.o.contentType).toBe("application/octet-stream");
      await api(key, "POST", `/v1/jobs/${job.body.id}/cancel`);
    }
  });
});

describe("deeply nested bodies", () => {
  it("are refused at the level past 32, before any schema reads them", async () => {
    const deep = `{"metadata":${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
    for (const route of ["/v1/jobs", "/v1/files"]) {
      const res = await api(key, "POST", route, deep);
      expect(res.status, route).toBe(400);
      expect(res.body.details[0]).toMatchObject({
        path: ["metadata", ...Array(31).fill("0")],
        message: "nested more than 32 levels deep",
      });
    }
  });
});
