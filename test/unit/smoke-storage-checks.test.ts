import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { FfjobsError, type Asset, type FfjobsClient, type Job } from "../../client/src/index.ts";
import type { ApiCall } from "../../scripts/smoke/api-call.ts";
import { checkCopySource, copySourceOf } from "../../scripts/smoke/check-copy-source.ts";
import { checkDestination } from "../../scripts/smoke/check-destination.ts";
import { checkHlsOutput } from "../../scripts/smoke/check-hls.ts";
import { checkMultipartUpload } from "../../scripts/smoke/check-multipart.ts";
import type { RunJob } from "../../scripts/smoke/smoke-job.ts";

/**
 * The smoke test's storage and job checks fed wrong platform answers through their injected fetch and
 * client: each is NOT expected, with what to do. (The right answers: test/e2e/smoke.test.ts, on the
 * local stack.)
 */
const R2 = "https://acct.r2.cloudflarestorage.com/ffjobs-media";
const source = { id: "11111111-1111-4111-8111-111111111111", fileName: "ffjobs-smoke.wav", size: 16044 };
const slotId = "22222222-2222-4222-8222-222222222222";

/** A client whose file calls answer as given; deletions are recorded. */
function client(file: Partial<Asset>, deleted: string[] = []): FfjobsClient {
  const slot = {
    id: slotId,
    status: "pending",
    size: null,
    upload: {
      method: "PUT",
      url: `${R2}/uploads/${slotId}/ffjobs-smoke-copy-target.wav?X-Amz-Signature=s`,
      headers: { "If-None-Match": "*" },
      expiresAt: "",
    },
  };
  return {
    createFile: async (body: { multipart?: boolean }) =>
      body.multipart
        ? { ...slot, upload: { method: "multipart", partSizeBytes: 5 * 1024 * 1024, partCount: 2, headers: {} } }
        : slot,
    getFile: async () => ({ ...slot, ...file }),
    deleteFile: async (id: string) => void deleted.push(id),
  } as unknown as FfjobsClient;
}
const storage = (answer: (url: string, init: RequestInit) => Response) =>
  (async (url: string, init: RequestInit) => answer(String(url), init)) as unknown as typeof fetch;
const job = (over: Partial<Job>) =>
  ({
    id: "j1",
    status: "completed",
    errorCode: null,
    errorMessage: null,
    outputs: [],
    deliveredOutputs: [],
    ...over,
  }) as unknown as Job;

describe("R2 and x-amz-copy-source", () => {
  it("names the source object in the bucket the slot's own URL names", () => {
    expect(copySourceOf(`${R2}/uploads/${slotId}/a.wav?X-Amz-Signature=s`, slotId, source)).toBe(
      `/ffjobs-media/uploads/${source.id}/ffjobs-smoke.wav`,
    );
    expect(
      copySourceOf(`http://127.0.0.1:8787/cdn-cgi/local/r2/s3/ffjobs-media/uploads/${slotId}/a.wav`, slotId, source),
    ).toBe(`/ffjobs-media/uploads/${source.id}/ffjobs-smoke.wav`);
  });

  it("finds an upload URL that copied another object NOT expected, and says not to share the deployment", async () => {
    const sent: Headers[] = [];
    const deleted: string[] = [];
    const f = await checkCopySource(
      {
        client: client({ status: "ready", size: 16044 }, deleted),
        fetch: storage((_u, init) => {
          sent.push(new Headers(init.headers));
          return new Response("<CopyObjectResult/>", { status: 200 });
        }),
      },
      source,
    );
    expect(f).toMatchObject({ verdict: "not-expected", required: true });
    expect(f.detail).toMatch(
      /answered HTTP 200 and the slot now holds 16044 bytes \(the source has 16044\): an upload URL copies objects of the bucket/,
    );
    expect(f.advice).toMatch(/^do not let untrusted accounts share this deployment/);
    // The slot's own signed request, plus the header: only the copy header can explain the answer.
    expect(sent[0].get("if-none-match")).toBe("*");
    expect(sent[0].get("x-amz-copy-source")).toBe(`/ffjobs-media/uploads/${source.id}/ffjobs-smoke.wav`);
    expect(deleted).toEqual([slotId]);
  });

  it("warns when storage accepts the header but copies nothing, and is content with a refusal of the header alone", async () => {
    const ignored = await checkCopySource(
      { client: client({ status: "ready", size: 0 }), fetch: storage(() => new Response(null, { status: 200 })) },
      source,
    );
    expect(ignored).toMatchObject({ verdict: "not-expected", required: false });
    const refusedBody = "<Error><Code>InvalidArgument</Code><Message>x-amz-copy-source is not signed</Message></Error>";
    const refusingCopies = storage((_u, init) =>
      new Headers(init.headers).has("x-amz-copy-source")
        ? new Response(refusedBody, { status: 400 })
        : new Response(null, { status: 200 }),
    );
    const refused = await checkCopySource(
      { client: client({ status: "pending", size: null }), fetch: refusingCopies },
      source,
    );
    expect(refused).toMatchObject({
      verdict: "expected",
      detail: `PUT with x-amz-copy-source answered HTTP 400 (${refusedBody}) and the slot stayed empty; the same PUT without it stored its 12 bytes`,
    });
    // A storage that refuses every PUT says nothing of the header: not taken for a refusal of it.
    const refusingAll = await checkCopySource(
      {
        client: client({ status: "pending", size: null }),
        fetch: storage(() => new Response(refusedBody, { status: 403 })),
      },
      source,
    );
    expect(refusingAll).toMatchObject({
      verdict: "not-expected",
      detail: expect.stringMatching(/but so did the same PUT without it \(HTTP 403\)/),
    });
  });
});

describe("an upload in parts", () => {
  const api = (complete: Partial<Asset>): ApiCall =>
    (async (_m: string, path: string) =>
      path.endsWith("/parts")
        ? { parts: [1, 2].map((n) => ({ partNumber: n, url: `${R2}/p${n}` })) }
        : { id: slotId, ...complete }) as ApiCall;

  it("is NOT expected when storage answers a part without an ETag, or the completed file is short", async () => {
    const noEtag = await checkMultipartUpload({
      client: client({}),
      api: api({}),
      fetch: storage(() => new Response(null, { status: 200 })),
    });
    expect(noEtag).toMatchObject({
      verdict: "not-expected",
      detail: "storage answered part 1 HTTP 200 without an ETag",
    });
    expect(noEtag.advice).toMatch(/R2_ACCESS_KEY_ID/);
    const short = await checkMultipartUpload({
      client: client({}),
      api: api({ status: "ready", size: 1024 }),
      fetch: storage(() => new Response(null, { status: 200, headers: { etag: '"e"' } })),
    });
    expect(short).toMatchObject({
      verdict: "not-expected",
      detail: "the upload completed as ready with 1024 bytes, expected ready with 5243904",
    });
  });
});

describe("an output sent to a destination", () => {
  const samples = new Uint8Array(16000).fill(7);
  const api: ApiCall = (async (_m: string, path: string) =>
    path.endsWith("/parts")
      ? { parts: [{ partNumber: 1, url: `${R2}/uploads/${slotId}/x.sw?partNumber=1&uploadId=u` }] }
      : { status: "ready", size: 16000 }) as ApiCall;

  it("is NOT expected when the runner could not send, with where to look", async () => {
    const runJob: RunJob = async () =>
      job({
        status: "failed",
        errorCode: "OUTPUT_UPLOAD_FAILED",
        errorMessage:
          'Output "pcm" could not be sent to its destination: acct.r2.cloudflarestorage.com: no address answered',
      });
    const f = await checkDestination({ client: client({}), api, runJob }, source, samples);
    expect(f).toMatchObject({
      verdict: "not-expected",
      detail: expect.stringMatching(/^job j1 failed: OUTPUT_UPLOAD_FAILED Output "pcm"/),
    });
    expect(f.advice).toMatch(/^the runner could not send to acct\.r2\.cloudflarestorage\.com: .*EGRESS_RESOLVER_URL/);
  });

  it("is NOT expected when the service refuses its own storage as a destination, or the bytes sent are not the job's", async () => {
    const refusing: RunJob = async () => {
      throw new FfjobsError(400, {
        error: "Invalid request: outputs.pcm.destination.url: 127.0.0.1 is a private or local address",
        code: "INVALID_REQUEST",
      });
    };
    expect((await checkDestination({ client: client({}), api, runJob: refusing }, source, samples)).advice).toMatch(
      /ALLOWED_PRIVATE_HOSTS=127\.0\.0\.1/,
    );
    const wrongBytes: RunJob = async () =>
      job({
        deliveredOutputs: [
          { size: 16000, sha256: createHash("sha256").update("other").digest("hex"), etag: '"e"' },
        ] as Job["deliveredOutputs"],
      });
    expect(await checkDestination({ client: client({}), api, runJob: wrongBytes }, source, samples)).toMatchObject({
      verdict: "not-expected",
      detail: expect.stringMatching(/expected 16000 bytes with SHA-256/),
    });
  });
});

describe("an HLS directory output", () => {
  const playlist = "#EXTM3U\n#EXT-X-VERSION:3\n#EXTINF:1.0,\nseg_000.ts\n#EXT-X-ENDLIST\n";
  const hlsJob: RunJob = async () =>
    job({
      outputs: [
        { downloadUrl: "https://ffjobs.example/outputs/j1/hls/tok/index.m3u8", files: [] },
      ] as unknown as Job["outputs"],
    });
  const serving = (segment: Response, headers: Record<string, string> = { "access-control-allow-origin": "*" }) =>
    storage((url) =>
      url.endsWith(".m3u8")
        ? new Response(playlist, { headers })
        : url === "https://ffjobs.example/outputs/j1/hls/tok/seg_000.ts"
          ? segment
          : new Response(null, { status: 404 }),
    );

  it("is NOT expected when a segment does not download from the playlist's link, or web players could not read it", async () => {
    expect(
      await checkHlsOutput({ runJob: hlsJob, fetch: serving(new Response(null, { status: 403 })) }, source),
    ).toMatchObject({ verdict: "not-expected", detail: "segment seg_000.ts answered HTTP 403" });
    expect(await checkHlsOutput({ runJob: hlsJob, fetch: serving(new Response("<html>")) }, source)).toMatchObject({
      verdict: "not-expected",
      detail: "segment seg_000.ts answered HTTP 200 with something that is not MPEG-TS",
    });
    const noCors = await checkHlsOutput(
      { runJob: hlsJob, fetch: serving(new Response(new Uint8Array([0x47, 0, 0])), {}) },
      source,
    );
    expect(noCors).toMatchObject({
      verdict: "not-expected",
      advice: expect.stringMatching(/web players on other sites cannot read it/),
    });
    expect(
      await checkHlsOutput({ runJob: hlsJob, fetch: serving(new Response(new Uint8Array([0x47, 0, 0]))) }, source),
    ).toMatchObject({ verdict: "expected" });
  });

  it("is NOT expected when the job cannot store its directory, pointing at the runner's path to the Worker", async () => {
    const failed: RunJob = async () =>
      job({ status: "failed", errorCode: "OUTPUT_UPLOAD_FAILED", errorMessage: "could not store seg_000.ts" });
    const f = await checkHlsOutput({ runJob: failed, fetch: serving(new Response(null)) }, source);
    expect(f).toMatchObject({
      verdict: "not-expected",
      detail: "job j1 failed: OUTPUT_UPLOAD_FAILED could not store seg_000.ts",
    });
    expect(f.advice).toMatch(/runner-files\.ffjobs\.internal/);
  });
});
