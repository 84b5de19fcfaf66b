import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { runScheduled } from "../../src/maintenance/scheduled.ts";
import { createServices } from "../../src/services.ts";
import { egressScopeOf } from "../../src/runner/egress-scope.ts";
import { FfmpegContainer } from "../../src/runner/ffmpeg-container.ts";
import { FILES_HOST } from "../../src/runner/runner-files.ts";
import type { RunnerJobRequest } from "../../src/runner/runner-protocol.ts";
import { runnerWriteToken } from "../../src/storage/directory-files.ts";
import { OUTPUT_PART_BYTES } from "../../src/storage/output-parts.ts";
import { createAccount, insertQueuedJob } from "./helpers.ts";

const PART = OUTPUT_PART_BYTES;
const OUTPUTS = {
  video: { fileName: "out.mp4", contentType: "video/mp4" },
  hls: { fileName: "hls", contentType: "application/vnd.apple.mpegurl", kind: "directory" },
  theirs: { fileName: "x.mp4", contentType: "video/mp4", destination: { url: "https://example.com/x" } },
};

/** A running job (attempt 1) with a file output, a directory output and one sent to the client's storage. */
async function runningJob(): Promise<string> {
  const { accountId } = await createAccount();
  const jobId = await insertQueuedJob(accountId, { outputs: OUTPUTS });
  await env.DB.prepare("UPDATE jobs SET status = 'running', attempts = 1 WHERE id = ?1").bind(jobId).run();
  return jobId;
}

/** The runner's calls through the local route (a local runner's, with its secret). */
function partsCaller(jobId: string, output = "video", attempt = 1) {
  const secret = loadConfig(env).runnerControlSecret!;
  const token = runnerWriteToken(loadConfig(env).storage, jobId, output, attempt, 60);
  const base = `http://ffjobs.test/internal/runner-files/parts/${jobId}/${output}/${attempt}/`;
  const call = async (step: string, method: string, body: BodyInit, headers: Record<string, string> = {}) => {
    const length = typeof body === "string" ? body.length : (body as Uint8Array).byteLength;
    const res = await exports.default.fetch(base + step, {
      method,
      body,
      headers: {
        authorization: `Bearer ${await token}`,
        "x-ffjobs-runner-secret": secret,
        "content-length": String(length),
        ...headers,
      },
    });
    const text = await res.text();
    return { status: res.status, text, json: () => JSON.parse(text) as Record<string, unknown> };
  };
  return {
    start: () => call("start", "POST", "{}"),
    part: (uploadId: string, n: number, bytes: Uint8Array) =>
      call(`part-${n}`, "PUT", bytes, { "x-upload-id": uploadId }),
    complete: (uploadId: string, parts: unknown) => call("complete", "POST", JSON.stringify({ uploadId, parts })),
    abort: (uploadId: string) => call("abort", "POST", JSON.stringify({ uploadId })),
    call,
  };
}

const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill);

describe("a file output's parts, sent while its command writes it", () => {
  it("stores the parts as one object under the output's key, with its content type", async () => {
    const jobId = await runningJob();
    const p = partsCaller(jobId);
    const { uploadId } = (await p.start()).json() as { uploadId: string };
    const etags = [];
    for (const [n, b] of [bytes(PART, 1), bytes(PART, 2), bytes(1000, 3)].entries()) {
      const sent = await p.part(uploadId, n + 1, b);
      expect(sent.status).toBe(200);
      etags.push({ partNumber: n + 1, etag: sent.json().etag });
    }
    const done = await p.complete(uploadId, etags);
    expect(done.json()).toEqual({ size: 2 * PART + 1000 });
    const stored = await env.BUCKET.get(`outputs/${jobId}/video/out.mp4`);
    expect(stored?.httpMetadata?.contentType).toBe("video/mp4");
    const all = new Uint8Array(await stored!.arrayBuffer());
    expect([all[0], all[PART], all[2 * PART], all.length]).toEqual([1, 2, 3, 2 * PART + 1000]);
  });

  it("refuses what R2 refuses: parts of unequal sizes, an ETag it did not give, an upload aborted", async () => {
    const jobId = await runningJob();
    const p = partsCaller(jobId);
    const { uploadId } = (await p.start()).json() as { uploadId: string };
    const one = (await p.part(uploadId, 1, bytes(PART, 1))).json().etag;
    const two = (await p.part(uploadId, 2, bytes(PART - 1, 2))).json().etag;
    const three = (await p.part(uploadId, 3, bytes(10, 3))).json().etag;
    const list = (etags: unknown[]) => etags.map((etag, i) => ({ partNumber: i + 1, etag }));
    expect((await p.complete(uploadId, list([one, two, three]))).status).toBe(409);
    expect((await p.complete(uploadId, list([one, "0".repeat(32)]))).status).toBe(409);
    expect((await p.abort(uploadId)).status).toBe(204);
    expect((await p.complete(uploadId, list([one, two]))).status).toBe(409);
  });

  it("refuses a part too long, a number out of range, a list with a gap, a body without its length", async () => {
    const jobId = await runningJob();
    const p = partsCaller(jobId);
    const { uploadId } = (await p.start()).json() as { uploadId: string };
    expect((await p.part(uploadId, 1, bytes(PART + 1, 1))).status).toBe(413);
    expect((await p.part(uploadId, 0, bytes(10, 1))).status).toBe(400);
    expect((await p.part(uploadId, 100_000, bytes(10, 1))).status).toBe(404);
    expect((await p.part(uploadId, 1, bytes(10, 1))).status).toBe(200);
    const gap = [
      { partNumber: 1, etag: "a" },
      { partNumber: 3, etag: "b" },
    ];
    expect((await p.complete(uploadId, gap)).status).toBe(400);
    expect((await p.complete(uploadId, [])).status).toBe(400);
    const huge = JSON.stringify({ uploadId, parts: [{ partNumber: 1, etag: "x".repeat(10_000_000) }] });
    expect((await p.call("complete", "POST", huge)).status).toBe(400);
    const chunked = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode("{}"));
        c.close();
      },
    });
    const res = await exports.default.fetch(
      `http://ffjobs.test/internal/runner-files/parts/${jobId}/video/1/complete`,
      {
        method: "POST",
        body: chunked,
        headers: {
          authorization: `Bearer ${await runnerWriteToken(loadConfig(env).storage, jobId, "video", 1, 60)}`,
          "x-ffjobs-runner-secret": loadConfig(env).runnerControlSecret!,
        },
      },
    );
    expect(res.status).toBe(400);
  });

  it("takes calls only for this attempt of a running job, for a file the service stores, with the output's token", async () => {
    const jobId = await runningJob();
    expect((await partsCaller(jobId, "hls").start()).status).toBe(404);
    expect((await partsCaller(jobId, "theirs").start()).status).toBe(404);
    expect((await partsCaller(jobId, "constructor").start()).status).toBe(404);
    expect((await partsCaller(jobId, "__proto__").start()).status).toBe(404);
    expect((await partsCaller(jobId, "video", 2).start()).status).toBe(409);
    const forged = await partsCaller(jobId).call("start", "POST", "{}", { authorization: "Bearer 1.x" });
    expect(forged.status).toBe(403);
    const other = await runningJob();
    const crossed = await partsCaller(other).call("start", "POST", "{}", {
      authorization: `Bearer ${await runnerWriteToken(loadConfig(env).storage, jobId, "video", 1, 60)}`,
    });
    expect(crossed.status).toBe(403);
    await env.DB.prepare("UPDATE jobs SET status = 'completed' WHERE id = ?1").bind(other).run();
    expect((await partsCaller(other).start()).status).toBe(409);
  });

  it("starts one upload per output and attempt, and takes no other upload's id", async () => {
    const jobId = await runningJob();
    const p = partsCaller(jobId);
    const { uploadId } = (await p.start()).json() as { uploadId: string };
    expect((await p.start()).status).toBe(409);
    // Another output's upload (another key) is refused by name, before storage is asked.
    const other = await runningJob();
    const theirs = (await partsCaller(other).start()).json() as { uploadId: string };
    expect((await p.part(theirs.uploadId, 1, bytes(10, 1))).status).toBe(409);
    expect((await p.complete(theirs.uploadId, [{ partNumber: 1, etag: "x" }])).status).toBe(409);
    expect((await p.abort(theirs.uploadId)).status).toBe(409);
    expect((await p.part(uploadId, 1, bytes(10, 1))).status).toBe(200);
  });

  it("takes an abort after the job ended (a cancel, a lost attempt): it only discards", async () => {
    const jobId = await runningJob();
    const p = partsCaller(jobId);
    const { uploadId } = (await p.start()).json() as { uploadId: string };
    expect((await p.part(uploadId, 1, bytes(PART, 1))).status).toBe(200);
    await env.DB.prepare("UPDATE jobs SET status = 'canceled' WHERE id = ?1").bind(jobId).run();
    expect((await p.part(uploadId, 2, bytes(10, 1))).status).toBe(409);
    expect((await p.abort(uploadId)).status).toBe(204);
    expect((await p.complete(uploadId, [{ partNumber: 1, etag: "x" }])).status).toBe(409);
  });

  it("stores a part of exactly its declared length, whatever the body holds", async () => {
    const jobId = await runningJob();
    const p = partsCaller(jobId);
    const { uploadId } = (await p.start()).json() as { uploadId: string };
    const lying = await p.call("part-1", "PUT", bytes(PART, 7), { "x-upload-id": uploadId, "content-length": "10" });
    expect(lying.status).toBe(409);
  });

  it("is only at its own path, and a file output's token stores nothing as a directory's file", async () => {
    const jobId = await runningJob();
    const token = await runnerWriteToken(loadConfig(env).storage, jobId, "video", 1, 60);
    const headers = {
      authorization: `Bearer ${token}`,
      "x-ffjobs-runner-secret": loadConfig(env).runnerControlSecret!,
      "content-length": "2",
    };
    const nested = await exports.default.fetch(
      `http://ffjobs.test/internal/runner-files/jobs/x/parts/${jobId}/video/1/start`,
      { method: "POST", body: "{}", headers },
    );
    expect(nested.status).toBe(404);
    for (const name of ["evil.html", "out.mp4"]) {
      const put = await exports.default.fetch(
        `http://ffjobs.test/internal/runner-files/jobs/${jobId}/video/1/${name}`,
        {
          method: "PUT",
          body: "<a>",
          headers: { ...headers, "content-length": "3" },
        },
      );
      expect(put.status).toBe(404);
      expect(await env.BUCKET.head(`outputs/${jobId}/video/${name}`)).toBeNull();
    }
  });

  it("reaches a container's job through its egress scope, and nothing past its own prefix", async () => {
    const job = await runningJob();
    const prefix = `http://${FILES_HOST}/parts/${job}/video/1/`;
    const req = {
      outputs: [
        {
          name: "video",
          fileName: "out.mp4",
          contentType: "video/mp4",
          uploadUrl: "http://127.0.0.1:9/unused",
          uploadToken: await runnerWriteToken(loadConfig(env).storage, job, "video", 1, 60),
          streamParts: { url: prefix, partSizeBytes: PART },
        },
      ],
      inputs: [],
    } as unknown as RunnerJobRequest;
    const egress = (url: string) =>
      FfmpegContainer.outboundHandlers!.jobEgress(
        new Request(url, {
          method: "POST",
          body: "{}",
          headers: { authorization: `Bearer ${req.outputs[0].uploadToken}`, "content-length": "2" },
        }),
        env,
        { params: egressScopeOf(req), containerId: "test", className: "FfmpegContainer" } as never,
      );
    const started = await egress(`${prefix}start`);
    expect(started.status).toBe(200);
    expect(typeof ((await started.json()) as { uploadId: unknown }).uploadId).toBe("string");
    const outside = await egress(`http://${FILES_HOST}/parts/${job}/other/1/start`);
    expect(outside.status).toBe(403);
  });
});

describe("uploads a runner left behind", () => {
  const key = (jobId: string) => `outputs/${jobId}/video/out.mp4`;
  const rows = async (jobId: string) =>
    (await env.DB.prepare("SELECT count(*) AS n FROM output_uploads WHERE job_id = ?1")
      .bind(jobId)
      .first<{ n: number }>())!.n;

  it("are aborted by the scheduled run once their attempt is over; a completed one's object stays", async () => {
    const ended = await runningJob();
    const left = partsCaller(ended);
    const { uploadId: leftId } = (await left.start()).json() as { uploadId: string };
    expect((await left.part(leftId, 1, bytes(PART, 1))).status).toBe(200);
    await env.DB.prepare("UPDATE jobs SET status = 'failed' WHERE id = ?1").bind(ended).run();

    const lost = await runningJob();
    const first = partsCaller(lost);
    const { uploadId: lostId } = (await first.start()).json() as { uploadId: string };
    await env.DB.prepare("UPDATE jobs SET attempts = 2 WHERE id = ?1").bind(lost).run();

    const done = await runningJob();
    const stored = partsCaller(done);
    const { uploadId: doneId } = (await stored.start()).json() as { uploadId: string };
    const etag = (await stored.part(doneId, 1, bytes(100, 5))).json().etag;
    expect((await stored.complete(doneId, [{ partNumber: 1, etag }])).status).toBe(200);
    await env.DB.prepare("UPDATE jobs SET status = 'completed' WHERE id = ?1").bind(done).run();

    const running = await runningJob();
    const { uploadId: runningId } = (await partsCaller(running).start()).json() as { uploadId: string };

    await runScheduled(createServices(env), env.BUCKET);
    for (const [job, id] of [
      [ended, leftId],
      [lost, lostId],
    ]) {
      await expect(env.BUCKET.resumeMultipartUpload(key(job), id).uploadPart(2, bytes(10, 1))).rejects.toThrow();
      expect(await rows(job)).toBe(0);
    }
    expect((await env.BUCKET.get(key(done)))?.size).toBe(100);
    expect(await rows(done)).toBe(0);
    // The running attempt's upload is its runner's.
    expect(await rows(running)).toBe(1);
    await expect(
      env.BUCKET.resumeMultipartUpload(key(running), runningId).uploadPart(1, bytes(10, 1)),
    ).resolves.toBeTruthy();
  });
});
