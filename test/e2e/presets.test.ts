import { describe, expect, it } from "vitest";
import { isFinished } from "../support/api-client.ts";
import { useLocalStack } from "../support/local-stack.ts";
import { ffprobeJson } from "../support/media-fixtures.ts";

const { local } = useLocalStack();

/** An input served by the media server (its address is known only once it runs). */
const url = (file: string) => ({ type: "url", url: `MEDIA/${file}` });
const withMedia = (body: unknown) => JSON.parse(JSON.stringify(body).replaceAll("MEDIA/", `${local.media.url}/`));
const stream = (output: any, type: string) => output.metadata.streams.find((s: any) => s.type === type);

/** Each preset run for real through the local stack (real runner, host ffmpeg, real storage); outputs checked by their ffprobe metadata. */
const cases: [string, Record<string, unknown>, (outputs: Record<string, any>, job: any) => void][] = [
  [
    "thumbnail",
    { inputs: { video: url("clip.mp4") }, params: { at: 1, width: 160 } },
    (o) => expect(stream(o.thumbnail, "video")).toMatchObject({ width: 160, height: 120 }),
  ],
  [
    "contact-sheet",
    { inputs: { video: url("clip.mp4") }, params: { columns: 2, rows: 2, everyFrames: 10, tileWidth: 80 } },
    (o) => expect(stream(o.sheet, "video")).toMatchObject({ width: 160, height: 120 }),
  ],
  [
    "web-mp4",
    { inputs: { video: url("clip.mp4") }, params: { height: 120 } },
    (o) => {
      expect(stream(o.mp4, "video")).toMatchObject({ codec: "h264", height: 120 });
      expect(stream(o.mp4, "audio")).toMatchObject({ codec: "aac" });
    },
  ],
  [
    "webm",
    { inputs: { video: url("clip.mp4") }, params: { height: 120 } },
    (o) => {
      expect(stream(o.webm, "video")).toMatchObject({ codec: "vp9", height: 120 });
      expect(stream(o.webm, "audio")).toMatchObject({ codec: "opus" });
    },
  ],
  [
    "gif",
    { inputs: { video: url("clip.mp4") }, params: { duration: 1, width: 120 } },
    (o) => expect(stream(o.gif, "video")).toMatchObject({ codec: "gif", width: 120 }),
  ],
  [
    "trim",
    { inputs: { video: url("clip.mp4") }, params: { start: 1, duration: 1 } },
    (o) => {
      expect(stream(o.clip, "video")).toMatchObject({ codec: "h264" });
      expect(o.clip.metadata.durationSeconds).toBeLessThan(2.5);
    },
  ],
  [
    "watermark",
    { inputs: { video: url("clip.mp4"), logo: url("logo.png") }, params: { position: "top-left" } },
    (o) => expect(stream(o.watermarked, "video")).toMatchObject({ codec: "h264", width: 320 }),
  ],
  [
    "concat",
    { input: [url("clip.mp4"), url("clip.mp4")] },
    (o) => expect(o.joined.metadata.durationSeconds).toBeCloseTo(6, 0),
  ],
  [
    "audio-mp3",
    { inputs: { media: url("clip.mp4") } },
    (o) => expect(o.audio.metadata.streams).toEqual([expect.objectContaining({ codec: "mp3" })]),
  ],
  [
    "audio-aac",
    { inputs: { media: url("clip.mp4") } },
    (o) => expect(o.audio.metadata.streams).toEqual([expect.objectContaining({ codec: "aac" })]),
  ],
  [
    "audio-opus",
    { inputs: { media: url("clip.mp4") } },
    (o) => expect(o.audio.metadata.streams).toEqual([expect.objectContaining({ codec: "opus" })]),
  ],
  [
    "loudnorm",
    { inputs: { media: url("clip.mp4") }, params: { target: -23 } },
    (o, job) => {
      expect(stream(o.normalized, "audio")).toMatchObject({ codec: "aac" });
      // Measured first, then normalised: both measures in the job, the output's after the encode.
      expect(job.presetReport.loudness).toMatchObject({
        mode: expect.stringMatching(/^(linear|dynamic)$/),
        before: { integratedLufs: expect.any(Number), truePeakDbtp: expect.any(Number) },
        after: { integratedLufs: expect.any(Number) },
      });
      expect(Math.abs(job.presetReport.loudness.after.integratedLufs + 23)).toBeLessThanOrEqual(1);
    },
  ],
  [
    "waveform",
    { inputs: { media: url("tone.wav") }, params: { width: 400, height: 100 } },
    (o) => expect(stream(o.picture, "video")).toMatchObject({ codec: "png", width: 400, height: 100 }),
  ],
  ["probe", { inputs: { video: url("clip.mp4") } }, (_o, job) => expect(job.status).toBe("completed")],
  [
    "thumbnail",
    { inputs: { video: url("long.mp4") }, params: { percent: 50, width: 64 } },
    (o, job) => {
      // 50 % of the 120 s clip: the runner probed it and wrote the seconds in.
      expect(job.ffmpegArgs.slice(0, 2)).toEqual(["-ss", "{{video@50%}}"]);
      expect(stream(o.thumbnail, "video")).toMatchObject({ width: 64, height: 36 });
    },
  ],
  [
    "hls-ladder",
    { inputs: { video: url("clip.mp4") }, params: { renditions: [144, 240], segmentSeconds: 1 } },
    (o) => {
      expect(o.hls).toMatchObject({ kind: "directory", contentType: "application/vnd.apple.mpegurl" });
      expect(o.hls.files.map((f: any) => f.path)).toEqual(
        expect.arrayContaining(["master.m3u8", "stream_0.m3u8", "stream_1.m3u8"]),
      );
      // The master playlist plays over HTTP from its URL: both renditions, read back by ffprobe.
      const heights = ffprobeJson(o.hls.downloadUrl)
        .streams.filter((st) => st.codec_type === "video")
        .map((st) => st.height)
        .sort((a: number, b: number) => a - b);
      expect(heights).toEqual([144, 240]);
    },
  ],
];

describe("presets, run for real", () => {
  it.each(cases)(
    "%s",
    async (name, body, check) => {
      const created = await local.api.call("POST", "/v1/jobs", withMedia({ mode: "preset", preset: name, ...body }));
      expect(created.status, JSON.stringify(created.body)).toBe(202);
      expect(created.body.mode).toBe("preset");
      const job = await local.api.waitUntil(created.body.id, isFinished, 60_000);
      expect(job, JSON.stringify(job)).toMatchObject({ status: "completed", mode: "preset", preset: name });
      expect(job.ffmpegArgs.length).toBeGreaterThan(0);
      // Every file output is proven as the preset promises (GET /v1/presets lists the checks), each check passed.
      const listed = (await local.api.call("GET", `/v1/presets/${name}`)).body.outputs;
      for (const o of job.outputs.filter((o: any) => o.kind === "file")) {
        const promised = Object.keys(listed[o.label].checks ?? { readable: true });
        // Results come in the checks' own order (docs/api.md's table), whatever order they were declared in.
        expect(o.checks.map((c: any) => [c.check, c.passed]).sort()).toEqual(promised.map((k) => [k, true]).sort());
        expect(o.sha256).toMatch(/^[0-9a-f]{64}$/);
      }
      check(Object.fromEntries(job.outputs.map((o: any) => [o.label, o])), job);
    },
    90_000,
  );

  it("thumbnail at a percentage of a still image fails with INPUT_DURATION_UNKNOWN before anything runs", async () => {
    const created = await local.api.call(
      "POST",
      "/v1/jobs",
      withMedia({ mode: "preset", preset: "thumbnail", inputs: { video: url("logo.png") }, params: { percent: 10 } }),
    );
    const job = await local.api.waitUntil(created.body.id, isFinished, 60_000);
    expect(job).toMatchObject({ status: "failed", errorCode: "INPUT_DURATION_UNKNOWN", runtimeSeconds: 0 });
  });
});
