import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type FfjobsClient } from "../../client/src/index.ts";
import { useLocalStack } from "../support/local-stack.ts";
import { startStaticServer } from "../support/static-server.ts";

/**
 * Uploads in parts (S3 multipart) on the local stack: the Worker starts and completes them with the
 * R2 binding, the client PUTs each part to the S3 endpoint with presigned URLs, as in production.
 * And the other way: a large output stored in parts while its command still writes it
 * (container/src/output-streams.ts, through the Worker's src/storage/output-parts.ts).
 */
const { fx, local } = useLocalStack();
const MiB = 1024 * 1024;
let client: FfjobsClient;
beforeAll(() => {
  client = createClient({ baseUrl: local.stack.baseUrl, apiKey: local.stack.apiKey });
});

/** Per-packet checksums of a file (ffmpeg's framemd5): the same media, byte for byte in its packets. */
const framemd5 = (path: string) =>
  execFileSync("ffmpeg", ["-v", "error", "-i", path, "-map", "0", "-c", "copy", "-f", "framemd5", "-"], {
    encoding: "utf8",
  }).replace(/^#.*\n/gm, "");

async function packetsOfUpload(assetId: string): Promise<string> {
  const job = await local.runToEnd({
    inputs: { in: { type: "asset", assetId } },
    outputs: { sums: { fileName: "sums.txt" } },
    ffmpegArgs: ["-i", "{{in}}", "-map", "0", "-c", "copy", "-f", "framemd5", "{{sums}}"],
  });
  expect(job.status, JSON.stringify(job)).toBe("completed");
  return (await (await fetch(job.outputs[0].downloadUrl)).text()).replace(/^#.*\n/gm, "");
}

describe("uploads in parts", () => {
  it("uploads a file in 5 MiB parts with progress, completes it, and a job reads it whole and right", async () => {
    const size = statSync(fx.long).size;
    const seen: number[] = [];
    const asset = await client.uploadFile(fx.long, {
      multipartThresholdBytes: 1,
      partSizeBytes: 5 * MiB,
      onProgress: (sent) => seen.push(sent),
    });
    expect(asset).toMatchObject({ status: "ready", size, fileName: "long.mp4" });
    expect(seen.length).toBe(Math.ceil(size / (5 * MiB)));
    expect(seen.at(-1)).toBe(size);
    expect(await packetsOfUpload(asset.id)).toBe(framemd5(fx.long));
  });

  it("sends a part again, with a fresh URL, when its PUT drops, and the file is still whole", async () => {
    let dropped = 0;
    const flaky: typeof fetch = async (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      if (init?.method === "PUT" && new URL(url).searchParams.get("partNumber") === "2" && dropped === 0) {
        dropped++;
        throw new TypeError("fetch failed (connection reset)");
      }
      return fetch(input, init);
    };
    const flakyClient = createClient({ baseUrl: local.stack.baseUrl, apiKey: local.stack.apiKey, fetch: flaky });
    const asset = await flakyClient.uploadFile(fx.long, { multipartThresholdBytes: 1, partSizeBytes: 5 * MiB });
    expect(dropped).toBe(1);
    expect(asset).toMatchObject({ status: "ready", size: statSync(fx.long).size });
    expect(await packetsOfUpload(asset.id)).toBe(framemd5(fx.long));
  });

  it("completes only with every part, once; keeps nothing that does not add up to the declared size; and says when there is nothing to complete", async () => {
    const bytes = readFileSync(fx.long).subarray(0, 11 * MiB);
    const slot = await client.createFile({
      fileName: "part.bin",
      size: bytes.length + 1,
      multipart: true,
      partSizeBytes: 5 * MiB,
    });
    expect(slot.upload).toEqual({ method: "multipart", partSizeBytes: 5 * MiB, partCount: 3, headers: {} });
    const { parts } = (await local.api.call("POST", `/v1/files/${slot.id}/parts`, { partNumbers: [1, 2, 3] })).body;
    const etags: { partNumber: number; etag: string }[] = [];
    for (const p of parts) {
      const res = await fetch(p.url, {
        method: "PUT",
        body: bytes.subarray((p.partNumber - 1) * 5 * MiB, p.partNumber * 5 * MiB),
      });
      expect(res.status).toBe(200);
      etags.push({ partNumber: p.partNumber, etag: res.headers.get("etag")! });
    }
    const past = await local.api.call("POST", `/v1/files/${slot.id}/parts`, { partNumbers: [4] });
    expect(past).toMatchObject({ status: 400, body: { details: [{ message: "part 4 is past the last part (3)" }] } });
    const missing = await local.api.call("POST", `/v1/files/${slot.id}/complete`, { parts: etags.slice(0, 2) });
    expect(missing).toMatchObject({
      status: 400,
      body: { details: [{ message: expect.stringMatching(/^part 3 is missing/) }] },
    });
    // One byte short of what the slot declared: storage assembles it, the service does not keep it.
    const short = await local.api.call("POST", `/v1/files/${slot.id}/complete`, { parts: etags });
    expect(short).toMatchObject({
      status: 400,
      body: {
        details: [
          {
            message: `the parts add up to ${bytes.length} bytes, but the upload declared ${bytes.length + 1}; the file was not kept: ask /parts for new URLs and send every part again`,
          },
        ],
      },
    });
    expect((await local.api.call("GET", `/v1/files/${slot.id}`)).body).toMatchObject({ status: "pending" });
    // The slot is not dead: fresh part URLs (a new upload behind them), the parts
    // sent again, this time adding up, and the file is ready.
    const whole = Buffer.concat([bytes, Buffer.from([7])]);
    const again = (await local.api.call("POST", `/v1/files/${slot.id}/parts`, { partNumbers: [1, 2, 3] })).body.parts;
    expect(new URL(again[0].url).searchParams.get("uploadId")).not.toBe(
      new URL(parts[0].url).searchParams.get("uploadId"),
    );
    const resent: { partNumber: number; etag: string }[] = [];
    for (const p of again) {
      const res = await fetch(p.url, {
        method: "PUT",
        body: whole.subarray((p.partNumber - 1) * 5 * MiB, p.partNumber * 5 * MiB),
      });
      expect(res.status).toBe(200);
      resent.push({ partNumber: p.partNumber, etag: res.headers.get("etag")! });
    }
    expect(await local.api.call("POST", `/v1/files/${slot.id}/complete`, { parts: resent })).toMatchObject({
      status: 200,
      body: { status: "ready", size: whole.length },
    });

    const single = await client.createFile({ fileName: "one.bin", size: 10 });
    const notParts = await local.api.call("POST", `/v1/files/${single.id}/parts`, { partNumbers: [1] });
    expect(notParts).toMatchObject({ status: 409, body: { code: "UPLOAD_NOT_IN_PROGRESS" } });
    const huge = await local.api.call("POST", "/v1/files", { fileName: "huge.mov", size: 6 * 1024 ** 3 });
    expect(huge).toMatchObject({ status: 400, body: { details: [{ path: ["multipart"] }] } });
  });

  it("aborts an upload in parts when its file is deleted", async () => {
    const slot = await client.createFile({
      fileName: "gone.bin",
      size: 6 * MiB,
      multipart: true,
      partSizeBytes: 5 * MiB,
    });
    const { parts } = (await local.api.call("POST", `/v1/files/${slot.id}/parts`, { partNumbers: [1] })).body;
    expect((await fetch(parts[0].url, { method: "PUT", body: new Uint8Array(5 * MiB) })).status).toBe(200);
    expect((await local.api.call("DELETE", `/v1/files/${slot.id}`)).status).toBe(204);
    // The upload is gone: its part URL no longer takes a part.
    expect((await fetch(parts[0].url, { method: "PUT", body: new Uint8Array(5 * MiB) })).status).toBeGreaterThanOrEqual(
      400,
    );
  });
});

describe("an output stored in parts while its command writes it", () => {
  const dir = mkdtempSync(join(tmpdir(), "ffjobs-streamed-outputs-"));
  let media: Awaited<ReturnType<typeof startStaticServer>>;
  beforeAll(async () => {
    // 6 s of uncompressed 320x240 video (23 MB): written over 6 s with -re, 5 parts of 5 MiB.
    execFileSync("ffmpeg", [
      ...["-v", "error", "-f", "lavfi", "-i", "testsrc=s=320x240:r=25:d=6"],
      ...["-c:v", "rawvideo", "-pix_fmt", "uyvy422", "-fflags", "+bitexact", join(dir, "raw.mkv")],
    ]);
    media = await startStaticServer(dir);
  });
  afterAll(() => media?.close());
  const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
  const copy = (input: string[], a: string, b: string) => [
    ...input,
    ...["-c", "copy", "-fflags", "+bitexact", a, "-c", "copy", "-fflags", "+bitexact", b],
  ];

  it("stores byte for byte what the command wrote, headers it went back to rewrite included (MOV, Matroska)", async () => {
    const job = await local.runToEnd({
      inputs: { in: { type: "url", url: `${media.url}/raw.mkv` } },
      outputs: { mov: { fileName: "out.mov" }, mkv: { fileName: "out.mkv" } },
      ffmpegArgs: copy(["-re", "-i", "{{in}}"], "{{mov}}", "{{mkv}}"),
    });
    expect(job.status, JSON.stringify(job)).toBe("completed");
    const bare = (name: string) => join(dir, name);
    execFileSync("ffmpeg", ["-v", "error", "-y", ...copy(["-i", bare("raw.mkv")], bare("out.mov"), bare("out.mkv"))]);
    for (const name of ["mov", "mkv"]) {
      const output = job.outputs.find((o: { label: string }) => o.label === name);
      const res = await fetch(output.downloadUrl);
      const got = new Uint8Array(await res.arrayBuffer());
      expect(got.length).toBe(statSync(bare(`out.${name}`)).size);
      expect(sha(got)).toBe(sha(readFileSync(bare(`out.${name}`))));
      // Stored as an upload in parts (an ETag of R2's multipart form, "<md5 of md5s>-<parts>"), not one PUT.
      expect(res.headers.get("etag")).toMatch(/-5"?$/);
    }
  });
});
