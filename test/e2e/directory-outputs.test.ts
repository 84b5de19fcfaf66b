import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useLocalStack } from "../support/local-stack.ts";
import { ffprobeJson } from "../support/media-fixtures.ts";
import { signToken } from "../../src/storage/url-signing.ts";

const scratch = mkdtempSync(join(tmpdir(), "ffjobs-dir-outputs-"));
const { local } = useLocalStack();
const video = () => ({ type: "url", url: `${local.media.url}/clip.mp4` });
const run = (body: unknown) => local.runToEnd(body);

describe("directory outputs, run for real", () => {
  it("an HLS ladder plays from its master playlist URL: variants and segments resolve under the signed prefix", async () => {
    const job = await run({
      inputs: { video: video() },
      outputs: { hls: { kind: "directory", fileName: "master.m3u8" } },
      ffmpegArgs: [
        "-i",
        "{{video}}",
        "-filter_complex",
        "[0:v]split=2[a][b];[a]scale=-2:120[v0];[b]scale=-2:240[v1]",
        "-map",
        "[v0]",
        "-map",
        "0:a",
        "-map",
        "[v1]",
        "-map",
        "0:a",
        "-c:v",
        "libx264",
        "-preset",
        "veryfast",
        "-c:a",
        "aac",
        "-f",
        "hls",
        "-hls_time",
        "1",
        "-hls_playlist_type",
        "vod",
        "-var_stream_map",
        "v:0,a:0 v:1,a:1",
        "-master_pl_name",
        "master.m3u8",
        "-hls_segment_filename",
        "{{hls/seg_%v_%03d.ts}}",
        "{{hls/stream_%v.m3u8}}",
      ],
    });
    expect(job, JSON.stringify(job)).toMatchObject({ status: "completed" });
    const [out] = job.outputs;
    expect(out).toMatchObject({ label: "hls", kind: "directory", contentType: "application/vnd.apple.mpegurl" });
    const paths = out.files.map((f: any) => f.path);
    expect(paths).toEqual(
      expect.arrayContaining(["master.m3u8", "stream_0.m3u8", "stream_1.m3u8", "seg_0_000.ts", "seg_1_000.ts"]),
    );
    expect(out.downloadUrl).toBe(out.files.find((f: any) => f.path === "master.m3u8").downloadUrl);
    expect(out.files.find((f: any) => f.path === "seg_0_000.ts")).toMatchObject({
      contentType: "video/mp2t",
      size: expect.any(Number),
    });
    expect(out.metadata.streams.find((s: any) => s.type === "video")).toMatchObject({ codec: "h264" });

    // A standard HLS client (ffmpeg's) reads master → variant → segments over HTTP, and remuxes them.
    const remuxed = join(scratch, "remuxed.mp4");
    execFileSync("ffmpeg", [
      "-v",
      "error",
      "-y",
      "-i",
      out.downloadUrl,
      "-map",
      "0:v:1",
      "-map",
      "0:a:0",
      "-c",
      "copy",
      remuxed,
    ]);
    const back = ffprobeJson(remuxed);
    expect(back.streams.find((s: any) => s.codec_type === "video")).toMatchObject({ codec_name: "h264", height: 240 });
    expect(Number(back.format.duration)).toBeCloseTo(3, 0);
  });

  it("refuses a changed or expired link, and paths outside the output", async () => {
    const job = await run({
      inputs: { video: video() },
      outputs: { hls: { kind: "directory", fileName: "index.m3u8" } },
      ffmpegArgs: [
        "-i",
        "{{video}}",
        "-c:v",
        "libx264",
        "-preset",
        "veryfast",
        "-an",
        "-f",
        "hls",
        "-hls_time",
        "1",
        "{{hls}}",
      ],
    });
    expect(job.status, JSON.stringify(job)).toBe("completed");
    const url = new URL(job.outputs[0].downloadUrl);
    const served = await fetch(url);
    expect(served.status).toBe(200);
    // Bytes a job wrote, served from the API's origin: never run as a page there.
    expect(served.headers.get("x-content-type-options")).toBe("nosniff");
    expect(served.headers.get("content-security-policy")).toBe("sandbox; default-src 'none'");
    const [, , jobId, name, token] = url.pathname.split("/");
    const tampered = (t: string, file = "index.m3u8", output = name) =>
      `${url.origin}/outputs/${jobId}/${output}/${t}/${file}`;
    const [expires, sig] = token.split(".");
    expect((await fetch(tampered(`${Number(expires) + 60}.${sig}`))).status).toBe(403);
    expect((await fetch(tampered(`${expires}.${sig.slice(0, -2)}AA`))).status).toBe(403);
    expect((await fetch(tampered(token, "index.m3u8", "other"))).status).toBe(403);
    expect((await fetch(tampered(token, "..%2F..%2Fuploads"))).status).toBe(404);
    expect((await fetch(tampered(token, "nope.ts"))).status).toBe(404);
    // A token signed with the dev stack's public S3 constant (wrangler.toml) is worthless: its key is random per run.
    const constantKey = { bucketName: "ffjobs-media", secretAccessKey: "local-dev-secret-key" };
    expect((await fetch(tampered(await signToken(constantKey, "read", jobId, name, Date.now() + 60_000)))).status).toBe(
      403,
    );
    // A byte range of a segment, as single-file HLS players ask for.
    const segment = job.outputs[0].files.find((f: any) => f.path.endsWith(".ts"));
    const ranged = await fetch(segment.downloadUrl, { headers: { Range: "bytes=0-187" } });
    expect(ranged.status).toBe(206);
    expect((await ranged.arrayBuffer()).byteLength).toBe(188);
    expect(ranged.headers.get("content-range")).toBe(`bytes 0-187/${segment.size}`);
    const tail = await fetch(segment.downloadUrl, { headers: { Range: "bytes=-10" } });
    expect(tail.status).toBe(206);
    expect(tail.headers.get("content-range")).toBe(`bytes ${segment.size - 10}-${segment.size - 1}/${segment.size}`);
    expect((await tail.arrayBuffer()).byteLength).toBe(10);
    // RFC 9110: a range past the end is 416 with the size, not the whole file.
    const past = await fetch(segment.downloadUrl, { headers: { Range: `bytes=${segment.size}-` } });
    expect(past.status).toBe(416);
    expect(past.headers.get("content-range")).toBe(`bytes */${segment.size}`);
    expect((await past.arrayBuffer()).byteLength).toBe(0);
  });

  it("an image sequence: every frame stored, the first is the main file", async () => {
    const job = await run({
      inputs: { video: video() },
      outputs: { frames: { kind: "directory", fileName: "frame_%03d.png" } },
      ffmpegArgs: ["-i", "{{video}}", "-vf", "fps=2,scale=80:-2", "{{frames}}"],
    });
    expect(job, JSON.stringify(job)).toMatchObject({ status: "completed" });
    const [out] = job.outputs;
    expect(out).toMatchObject({ kind: "directory", contentType: "image/png" });
    expect(out.files.map((f: any) => f.path)).toEqual([
      "frame_001.png",
      "frame_002.png",
      "frame_003.png",
      "frame_004.png",
      "frame_005.png",
      "frame_006.png",
    ]);
    expect(out.downloadUrl).toBe(out.files[0].downloadUrl);
    expect(out.metadata.size).toBe(out.files.reduce((n: number, f: any) => n + f.size, 0));
    const last = ffprobeJson(out.files.at(-1).downloadUrl);
    expect(last.streams[0]).toMatchObject({ codec_name: "png", width: 80, height: 60 });
  });

  it("fails a directory output whose main file was never written", async () => {
    const missing = await run({
      inputs: { video: video() },
      outputs: { frames: { kind: "directory", fileName: "cover.png" } },
      ffmpegArgs: ["-i", "{{video}}", "-frames:v", "2", "{{frames/other_%d.png}}"],
    });
    expect(missing).toMatchObject({ status: "failed", errorCode: "OUTPUT_MISSING", outputs: [] });
    expect(missing.errorMessage).toMatch(/cover\.png/);
  });
});
