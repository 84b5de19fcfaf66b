import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPutReceiver } from "../support/put-receiver.ts";
import { useLocalStack } from "../support/local-stack.ts";

/**
 * Outputs sent to the client's own storage: a presigned PUT URL on a loopback server that answers as
 * S3 does (test/support/put-receiver.ts), reached by the runner under the address policy of inputs.
 */
const { fx, local } = useLocalStack();
let bucket: Awaited<ReturnType<typeof startPutReceiver>>;
beforeAll(async () => {
  bucket = await startPutReceiver();
});
afterAll(() => bucket?.close());

const clip = () => ({ type: "url", url: `${local.media.url}/${fx.clip.split("/").pop()}` });
const transcode = [
  "-i",
  "{{clip}}",
  "-t",
  "1",
  "-vf",
  "scale=160:-2",
  "-c:v",
  "libx264",
  "-preset",
  "ultrafast",
  "-an",
  "{{small}}",
];

describe("an output with a destination", () => {
  it("is PUT to the client's URL with its headers, and the job records where, how big, its SHA-256 and the ETag, never the signature", async () => {
    const signed = `${bucket.url}/media/small.mp4?X-Amz-Signature=secret-signature&X-Amz-Expires=600`;
    const job = await local.runToEnd({
      inputs: { clip: clip() },
      outputs: {
        small: {
          fileName: "small.mp4",
          destination: { url: signed, headers: { "x-amz-meta-origin": "ffjobs", "cache-control": "max-age=60" } },
        },
      },
      ffmpegArgs: transcode,
    });
    expect(job.status, JSON.stringify(job)).toBe("completed");
    const got = bucket.received.get("/media/small.mp4?X-Amz-Signature=secret-signature&X-Amz-Expires=600")!;
    expect(got.headers).toMatchObject({
      "x-amz-meta-origin": "ffjobs",
      "cache-control": "max-age=60",
      "content-type": "video/mp4",
    });
    expect(got.body.subarray(4, 8).toString()).toBe("ftyp");
    expect(job.outputs).toEqual([]);
    expect(job.deliveredOutputs).toEqual([
      {
        label: "small",
        url: `${bucket.url}/media/small.mp4`,
        contentType: "video/mp4",
        size: got.body.length,
        sha256: createHash("sha256").update(got.body).digest("hex"),
        etag: `"${createHash("md5").update(got.body).digest("hex")}"`,
        metadata: expect.objectContaining({
          format: "mov,mp4,m4a,3gp,3g2,mj2",
          streams: [expect.objectContaining({ codec: "h264", width: 160 })],
        }),
      },
    ]);
    expect(job.outputDeclarations.small.destination).toEqual({
      url: `${bucket.url}/media/small.mp4`,
      headers: ["x-amz-meta-origin", "cache-control"],
    });
    expect(JSON.stringify(job)).not.toContain("secret-signature");
    expect(job.creditsCharged).toBeGreaterThan(0);
  }, 120_000);

  it("fails the job with what the destination answered when it refuses the PUT", async () => {
    const job = await local.runToEnd({
      inputs: { clip: clip() },
      outputs: {
        small: { fileName: "small.mp4", destination: { url: `${bucket.url}/deny/small.mp4?X-Amz-Signature=old` } },
      },
      ffmpegArgs: transcode,
    });
    expect(job).toMatchObject({ status: "failed", errorCode: "OUTPUT_UPLOAD_FAILED" });
    expect(job.errorMessage).toBe(
      `Output "small" could not be sent to its destination: ${new URL(bucket.url).host} answered HTTP 403: <?xml version="1.0" encoding="UTF-8"?> <Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>`,
    );
  }, 120_000);

  it("is refused at creation on a private address, with a header that is not a content or storage one, or on a directory", async () => {
    const create = (outputs: object) =>
      local.api.call("POST", "/v1/jobs", { inputs: { clip: clip() }, outputs, ffmpegArgs: transcode });
    const privateHost = await create({
      small: { fileName: "small.mp4", destination: { url: "http://10.0.0.7/bucket/small.mp4" } },
    });
    expect(privateHost.body.details).toEqual([
      {
        path: ["outputs", "small", "destination", "url"],
        code: "custom",
        message:
          "10.0.0.7 is a private or local address: outputs are sent only to public addresses (operators can allow hosts with ALLOWED_PRIVATE_HOSTS)",
      },
    ]);
    const header = await create({
      small: { fileName: "small.mp4", destination: { url: `${bucket.url}/x`, headers: { authorization: "Bearer x" } } },
    });
    expect(header.body.details[0].path).toEqual(["outputs", "small", "destination", "headers", "authorization"]);
    const directory = await create({
      small: { fileName: "index.m3u8", kind: "directory", destination: { url: `${bucket.url}/hls/index.m3u8?sig=x` } },
    });
    expect(directory.body.details[0]).toMatchObject({
      path: ["outputs", "small", "destination", "url"],
      message:
        'a directory\'s destination is a URL prefix: its path ends with "/" (each file is PUT under it, with its query)',
    });
  });

  it("over 5 GiB goes as an S3 multipart upload the client started: its parts PUT in order, then completed, the object whole", async () => {
    const uploadId = await bucket.createMultipartUpload("/media/big.avi");
    const partSizeBytes = 5 * 1024 * 1024;
    const signed = (q: string) => `${bucket.url}/media/big.avi?${q}&X-Amz-Signature=part-secret`;
    // One second of 320x240 RGB (5.76 MB): two parts of a 5 MiB size, with a third URL to spare.
    const raw = [
      "-i",
      "{{clip}}",
      "-t",
      "1",
      "-vf",
      "scale=320:240",
      "-c:v",
      "rawvideo",
      "-pix_fmt",
      "rgb24",
      "-an",
      "{{big}}",
    ];
    const parts = {
      urls: [1, 2, 3].map((n) => signed(`partNumber=${n}&uploadId=${uploadId}`)),
      partSizeBytes,
      completeUrl: signed(`uploadId=${uploadId}`),
    };
    const job = await local.runToEnd({
      inputs: { clip: clip() },
      outputs: {
        big: {
          fileName: "big.avi",
          destination: { parts, headers: { "x-amz-meta-origin": "ffjobs", "x-amz-request-payer": "requester" } },
        },
      },
      ffmpegArgs: raw,
    });
    expect(job.status, JSON.stringify(job)).toBe("completed");
    const object = bucket.received.get("/media/big.avi")!;
    expect(object.body.length).toBeGreaterThan(partSizeBytes);
    // The parts carried the headers that go with each request, not the object's own (its metadata is the creation's).
    expect(object.headers["x-amz-request-payer"]).toBe("requester");
    expect(object.headers["x-amz-meta-origin"]).toBeUndefined();
    expect(job.deliveredOutputs).toEqual([
      {
        label: "big",
        url: `${bucket.url}/media/big.avi`,
        contentType: expect.stringMatching(/^video\//),
        size: object.body.length,
        sha256: createHash("sha256").update(object.body).digest("hex"),
        etag: expect.stringMatching(/^"[0-9a-f]{32}-2"$/),
        metadata: expect.objectContaining({ streams: [expect.objectContaining({ codec: "rawvideo", width: 320 })] }),
      },
    ]);
    expect(job.outputDeclarations.big.destination).toEqual({
      url: `${bucket.url}/media/big.avi`,
      headers: ["x-amz-meta-origin", "x-amz-request-payer"],
      parts: { count: 3, partSizeBytes },
    });
    expect(JSON.stringify(job)).not.toContain("part-secret");
  }, 120_000);

  it("fails with the reason when the parts given cannot hold the output, or the storage refuses the completion", async () => {
    const raw = [
      "-i",
      "{{clip}}",
      "-t",
      "1",
      "-vf",
      "scale=320:240",
      "-c:v",
      "rawvideo",
      "-pix_fmt",
      "rgb24",
      "-an",
      "{{big}}",
    ];
    const run = (parts: object) =>
      local.runToEnd({
        inputs: { clip: clip() },
        outputs: { big: { fileName: "big.avi", destination: { parts } } },
        ffmpegArgs: raw,
      });
    const id = await bucket.createMultipartUpload("/media/short.avi");
    const short = await run({
      urls: [`${bucket.url}/media/short.avi?partNumber=1&uploadId=${id}`],
      partSizeBytes: 5 * 1024 * 1024,
      completeUrl: `${bucket.url}/media/short.avi?uploadId=${id}`,
    });
    expect(short).toMatchObject({ status: "failed", errorCode: "OUTPUT_UPLOAD_FAILED" });
    expect(short.errorMessage).toMatch(
      /^Output "big" could not be sent to its destination: the output is \d+ bytes: 2 parts of 5242880 bytes, and the destination gave 1 part URL$/,
    );
    // An upload the storage does not know (aborted, or its id mistyped): S3's own refusal, named.
    const unknown = await run({
      urls: [1, 2].map((n) => `${bucket.url}/media/gone.avi?partNumber=${n}&uploadId=nope`),
      partSizeBytes: 5 * 1024 * 1024,
      completeUrl: `${bucket.url}/media/gone.avi?uploadId=nope`,
    });
    expect(unknown.errorMessage).toContain(
      'answered HTTP 404: <?xml version="1.0" encoding="UTF-8"?> <Error><Code>NoSuchUpload</Code>',
    );
  }, 120_000);

  it("is refused at creation with parts S3 would refuse, or with both a url and parts", async () => {
    const create = (destination: object) =>
      local.api.call("POST", "/v1/jobs", {
        inputs: { clip: clip() },
        outputs: { big: { fileName: "big.avi", destination } },
        ffmpegArgs: transcode.map((a) => (a === "{{small}}" ? "{{big}}" : a)),
      });
    const small = await create({
      parts: { urls: [`${bucket.url}/p1`], partSizeBytes: 1024 * 1024, completeUrl: `${bucket.url}/c` },
    });
    expect(small.status).toBe(400);
    expect(small.body.details[0].path).toEqual(["outputs", "big", "destination", "parts", "partSizeBytes"]);
    const both = await create({
      url: `${bucket.url}/x`,
      parts: { urls: [`${bucket.url}/p1`], partSizeBytes: 5 * 1024 * 1024, completeUrl: `${bucket.url}/c` },
    });
    expect(both.body.details[0]).toMatchObject({
      path: ["outputs", "big", "destination"],
      message: "give either url (one PUT) or parts (an S3 multipart upload)",
    });
    const privatePart = await create({
      parts: { urls: ["http://10.0.0.7/p1"], partSizeBytes: 5 * 1024 * 1024, completeUrl: `${bucket.url}/c` },
    });
    expect(privatePart.body.details[0].path).toEqual(["outputs", "big", "destination", "parts", "urls", "0"]);
  });

  it("of a directory puts every file under the client's prefix with its query (a container SAS), and records each", async () => {
    const sas = "sv=2025-01-05&sr=c&sp=cw&sig=sas-secret";
    const job = await local.runToEnd({
      inputs: { clip: clip() },
      outputs: {
        frames: {
          fileName: "frame_%02d.png",
          kind: "directory",
          destination: { url: `${bucket.url}/c/job-1/?${sas}`, headers: { "x-ms-blob-type": "BlockBlob" } },
        },
      },
      ffmpegArgs: ["-i", "{{clip}}", "-vf", "fps=2,scale=64:-2", "-frames:v", "3", "{{frames}}"],
    });
    expect(job.status, JSON.stringify(job)).toBe("completed");
    const names = ["frame_01.png", "frame_02.png", "frame_03.png"];
    const got = names.map((n) => bucket.received.get(`/c/job-1/${n}?${sas}`)!);
    expect(got.every((g) => g && g.contentType === "image/png" && g.headers["x-ms-blob-type"] === "BlockBlob")).toBe(
      true,
    );
    const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");
    const md5 = (b: Buffer) => `"${createHash("md5").update(b).digest("hex")}"`;
    expect(job.deliveredOutputs).toEqual([
      {
        label: "frames",
        url: `${bucket.url}/c/job-1/`,
        contentType: "image/png",
        size: got.reduce((n, g) => n + g.body.length, 0),
        sha256: sha(got[0].body),
        etag: md5(got[0].body),
        metadata: expect.objectContaining({ streams: [expect.objectContaining({ codec: "png", width: 64 })] }),
        files: names.map((path, i) => ({
          path,
          size: got[i].body.length,
          sha256: sha(got[i].body),
          etag: md5(got[i].body),
        })),
      },
    ]);
    expect(job.outputs).toEqual([]);
    expect(JSON.stringify(job)).not.toContain("sas-secret");
  }, 120_000);
});
