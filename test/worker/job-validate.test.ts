import { beforeAll, describe, expect, it } from "vitest";
import { api, countRows, createAccount, mediaUrl } from "./helpers.ts";

let key: string;
beforeAll(async () => {
  ({ key } = await createAccount());
});

const validate = (body: unknown, query = "") => api(key, "POST", `/v1/jobs/validate${query}`, body);

describe("POST /v1/jobs/validate (dry run)", () => {
  it("shows the command line the runner would run, with sandbox paths and the service's options, and creates nothing", async () => {
    const before = await countRows("jobs");
    const res = await validate({
      inputs: { video: { type: "url", url: "https://media.example.org/talk.mov" } },
      outputs: { small: { fileName: "small.mp4" } },
      ffmpegArgs: ["-i", "{{video}}", "-vf", "scale=640:-2", "{{small}}"],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ valid: true, mode: "raw", binary: "ffmpeg" });
    const [command] = res.body.commands;
    expect(command.argv[0]).toBe("ffmpeg");
    expect(command.argv).toContain("/job/in/video.mov");
    expect(command.argv.at(-1)).toBe("/job/out/small.mp4");
    expect(command.argv).toEqual(expect.arrayContaining(["-protocol_whitelist", "file", "-fs", "-progress"]));
    expect(await countRows("jobs")).toBe(before);
  });

  it("resolves every step, scratch files and directory-output files; keeps {{input@P%}} for the runner", async () => {
    const res = await validate({
      inputs: { video: { type: "url", url: "https://media.example.org/a.mp4" } },
      scratch: { log: "pass.log" },
      outputs: { hls: { kind: "directory", fileName: "master.m3u8" } },
      steps: [
        {
          ffmpegArgs: [
            "-ss",
            "{{video@50%}}",
            "-i",
            "{{video}}",
            "-pass",
            "1",
            "-passlogfile",
            "{{log}}",
            "-f",
            "null",
            "-",
          ],
        },
        { ffmpegArgs: ["-i", "{{video}}", "-f", "hls", "-hls_segment_filename", "{{hls/seg_%03d.ts}}", "{{hls}}"] },
      ],
    });
    expect(res.body.valid, JSON.stringify(res.body)).toBe(true);
    expect(res.body.commands).toHaveLength(2);
    expect(res.body.commands[0].argv).toEqual(expect.arrayContaining(["{{video@50%}}", "/job/work/log.log"]));
    expect(res.body.commands[1].argv).toEqual(
      expect.arrayContaining(["/job/out/hls/seg_%03d.ts", "/job/out/hls/master.m3u8"]),
    );
  });

  it("answers valid: false with the errors creation would give, for the job and for a preset", async () => {
    const before = await countRows("jobs");
    const bad = await validate({
      inputs: { a: { type: "url", url: "https://m.example.org/a.mp4" } },
      ffmpegArgs: ["-i", "{{a}}", "-vf", "movie=/etc/passwd", "-f", "null", "-"],
    });
    expect(bad.status).toBe(200);
    expect(bad.body).toMatchObject({
      valid: false,
      error: expect.stringMatching(/^Invalid request: ffmpegArgs\.3/),
      details: [expect.objectContaining({ path: ["ffmpegArgs", "3"] })],
    });
    const preset = await validate({
      mode: "preset",
      preset: "thumbnail",
      inputs: { video: { type: "url", url: "https://m.example.org/a.mp4" } },
      params: { width: 1 },
    });
    expect(preset.body).toMatchObject({
      valid: false,
      details: [expect.objectContaining({ path: ["params", "width"] })],
    });
    const good = await validate({
      mode: "preset",
      preset: "thumbnail",
      inputs: { video: { type: "url", url: "https://m.example.org/a.mp4" } },
    });
    expect(good.body).toMatchObject({ valid: true, mode: "preset" });
    expect((await api(key, "POST", "/v1/jobs/validate", "{nope", { "Content-Type": "application/json" })).status).toBe(
      400,
    );
    expect(await countRows("jobs")).toBe(before);
  });

  it("with ?probe=true, probes each input on a runner and estimates the credits", async () => {
    const res = await validate(
      {
        inputs: {
          video: { type: "url", url: mediaUrl("clip.mp4") },
          missing: { type: "url", url: mediaUrl("nope.mp4") },
        },
        ffmpegArgs: ["-i", "{{video}}", "-i", "{{missing}}", "-f", "null", "-"],
      },
      "?probe=true",
    );
    expect(res.body.valid, JSON.stringify(res.body)).toBe(true);
    expect(res.body.inputs.video).toMatchObject({ ok: true, metadata: { streams: expect.any(Array) } });
    expect(res.body.inputs.video.durationSeconds).toBeCloseTo(3, 0);
    expect(res.body.inputs.missing).toMatchObject({ ok: false, error: expect.stringMatching(/HTTP 404/) });
    expect(res.body.estimate.seconds).toBeGreaterThanOrEqual(3);
    expect(res.body.estimate.credits).toBe(res.body.estimate.seconds);
  });
});

describe("the probe budget", () => {
  it("gives each account PROBE_RATE_LIMIT_PER_MINUTE probes a minute, then 429 with Retry-After; plain dry runs go on", async () => {
    const { key: own } = await createAccount();
    const body = {
      inputs: { a: { type: "url", url: mediaUrl("nope.mp4") } },
      ffmpegArgs: ["-i", "{{a}}", "-f", "null", "-"],
    };
    for (let i = 0; i < 10; i++)
      expect((await api(own, "POST", "/v1/jobs/validate?probe=true", body)).status).toBe(200);
    const over = await api(own, "POST", "/v1/jobs/validate?probe=true", body);
    expect(over).toMatchObject({ status: 429, body: { code: "RATE_LIMITED" } });
    expect(Number(over.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect((await api(own, "POST", "/v1/jobs/validate", body)).status).toBe(200);
  });

  it("lets an account run PROBE_CONCURRENCY_PER_ACCOUNT probes at once (1): a second waits with 429, another account's goes on", async () => {
    const [{ key: busy }, { key: other }] = [await createAccount(), await createAccount()];
    const body = (file: string) => ({
      inputs: { a: { type: "url", url: mediaUrl(file) } },
      ffmpegArgs: ["-i", "{{a}}", "-f", "null", "-"],
    });
    const first = api(busy, "POST", "/v1/jobs/validate?probe=true", body("slow/1500/clip.mp4"));
    await new Promise((r) => setTimeout(r, 300));
    const second = await api(busy, "POST", "/v1/jobs/validate?probe=true", body("clip.mp4"));
    expect(second).toMatchObject({
      status: 429,
      body: { code: "RATE_LIMITED", error: expect.stringMatching(/already has 1 input probe\(s\) running/) },
    });
    expect(Number(second.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect((await api(other, "POST", "/v1/jobs/validate?probe=true", body("clip.mp4"))).body.inputs.a).toMatchObject({
      ok: true,
    });
    expect((await first).body.inputs.a).toMatchObject({ ok: true });
    // Its slot is given back when it ends.
    expect((await api(busy, "POST", "/v1/jobs/validate?probe=true", body("clip.mp4"))).body.inputs.a).toMatchObject({
      ok: true,
    });
  });
});
