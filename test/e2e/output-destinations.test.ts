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
const transcode = ["-i", "{{clip}}", "-t", "1", "-vf", "scale=160:-2", "-c:v", "libx264", "-preset", "ultrafast", "-an", "{{small}}"];

describe("an output with a destination", () => {
  it("is PUT to the client's URL with its headers, and the job records where, how big, its SHA-256 and the ETag, never the signature", async () => {
    const signed = `${bucket.url}/media/small.mp4?X-Amz-Signature=secret-signature&X-Amz-Expires=600`;
    const job = await local.runToEnd({
      inputs: { clip: clip() },
      outputs: { small: { fileName: "small.mp4", destination: { url: signed, headers: { "x-amz-meta-origin": "ffjobs", "cache-control": "max-age=60" } } } },
      ffmpegArgs: transcode,
    });
    expect(job.status, JSON.stringify(job)).toBe("completed");
    const got = bucket.received.get("/media/small.mp4?X-Amz-Signature=secret-signature&X-Amz-Expires=600")!;
    expect(got.headers).toMatchObject({ "x-amz-meta-origin": "ffjobs", "cache-control": "max-age=60", "content-type": "video/mp4" });
    expect(got.body.subarray(4, 8).toString()).toBe("ftyp");
    expect(job.outputs).toEqual([]);
    expect(job.deliveredOutputs).toEqual([{
      label: "small", url: `${bucket.url}/media/small.mp4`, contentType: "video/mp4", size: got.body.length,
      sha256: createHash("sha256").update(got.body).digest("hex"), etag: `"${createHash("md5").update(got.body).digest("hex")}"`,
      metadata: expect.objectContaining({ format: "mov,mp4,m4a,3gp,3g2,mj2", streams: [expect.objectContaining({ codec: "h264", width: 160 })] }),
    }]);
    expect(job.outputDeclarations.small.destination).toEqual({ url: `${bucket.url}/media/small.mp4`, headers: ["x-amz-meta-origin", "cache-control"] });
    expect(JSON.stringify(job)).not.toContain("secret-signature");
    expect(job.creditsCharged).toBeGreaterThan(0);
  }, 120_000);

  it("fails the job with what the destination answered when it refuses the PUT", async () => {
    const job = await local.runToEnd({
      inputs: { clip: clip() },
      outputs: { small: { fileName: "small.mp4", destination: { url: `${bucket.url}/deny/small.mp4?X-Amz-Signature=old` } } },
      ffmpegArgs: transcode,
    });
    expect(job).toMatchObject({ status: "failed", errorCode: "OUTPUT_UPLOAD_FAILED" });
    expect(job.errorMessage).toBe(`Output "small" could not be sent to its destination: ${new URL(bucket.url).host} answered HTTP 403: <?xml version="1.0" encoding="UTF-8"?> <Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>`);
  }, 120_000);

  it("is refused at creation on a private address, with a header that is not a content or storage one, or on a directory", async () => {
    const create = (outputs: object) => local.api.call("POST", "/v1/jobs", { inputs: { clip: clip() }, outputs, ffmpegArgs: transcode });
    const privateHost = await create({ small: { fileName: "small.mp4", destination: { url: "http://10.0.0.7/bucket/small.mp4" } } });
    expect(privateHost.body.details).toEqual([{ path: ["outputs", "small", "destination", "url"], code: "custom",
      message: "10.0.0.7 is a private or local address: outputs are sent only to public addresses (operators can allow hosts with ALLOWED_PRIVATE_HOSTS)" }]);
    const header = await create({ small: { fileName: "small.mp4", destination: { url: `${bucket.url}/x`, headers: { authorization: "Bearer x" } } } });
    expect(header.body.details[0].path).toEqual(["outputs", "small", "destination", "headers", "authorization"]);
    const directory = await create({ small: { fileName: "index.m3u8", kind: "directory", destination: { url: `${bucket.url}/x` } } });
    expect(directory.body.details[0]).toMatchObject({ path: ["outputs", "small", "destination"], message: "a directory output is stored by the service: a destination takes one file" });
  });
});
