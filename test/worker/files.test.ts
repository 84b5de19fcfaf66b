import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { runnerWriteToken } from "../../src/storage/directory-files.ts";
import { signToken } from "../../src/storage/url-signing.ts";
import { assetSchema } from "../../src/api/schemas/files.ts";
import { runScheduled } from "../../src/maintenance/scheduled.ts";
import { createServices } from "../../src/services.ts";
import { api, countRows, createAccount, insertQueuedJob } from "./helpers.ts";

let key: string;
beforeAll(async () => {
  ({ key } = await createAccount());
});

describe("files (upload slots)", () => {
  it("creates a pending asset with a presigned PUT that expires", async () => {
    const res = await api(key, "POST", "/v1/files", { fileName: "clip.mp4", contentType: "video/mp4", size: 1234 });
    expect(res.status).toBe(201);
    const asset = assetSchema.strict().parse(res.body);
    expect(asset).toMatchObject({ fileName: "clip.mp4", contentType: "video/mp4", size: 1234, status: "pending" });
    expect(asset.upload).toMatchObject({ method: "PUT", headers: { "Content-Type": "video/mp4" } });
    if (asset.upload?.method !== "PUT") throw new Error("a single PUT was expected");
    const url = new URL(asset.upload.url);
    expect(url.pathname).toBe(`/cdn-cgi/local/r2/s3/ffjobs-media/uploads/${asset.id}/clip.mp4`);
    expect(url.searchParams.get("X-Amz-Expires")).toBe("3600");
    expect(url.searchParams.get("X-Amz-Signature")).toMatch(/^[0-9a-f]{64}$/);
    expect(Date.parse(asset.upload.expiresAt) - Date.parse(asset.createdAt)).toBeGreaterThanOrEqual(3599_000);
  });

  it("turns ready with the stored size once the bytes are in the bucket", async () => {
    const { body } = await api(key, "POST", "/v1/files", { fileName: "a.wav", contentType: "audio/wav" });
    expect((await api(key, "GET", `/v1/files/${body.id}`)).body).toMatchObject({ status: "pending", size: null });
    await env.BUCKET.put(`uploads/${body.id}/a.wav`, new Uint8Array(321));
    const ready = await api(key, "GET", `/v1/files/${body.id}`);
    expect(assetSchema.strict().parse(ready.body)).toMatchObject({ status: "ready", size: 321 });
    expect(ready.body.upload).toBeUndefined();
  });

  it("signs If-None-Match: * into a single-PUT upload URL, so storage takes the bytes once and refuses any later PUT", async () => {
    const res = await api(key, "POST", "/v1/files", { fileName: "once.mp4" });
    expect(res.body.upload.headers).toEqual({ "Content-Type": "video/mp4", "If-None-Match": "*" });
    expect(new URL(res.body.upload.url).searchParams.get("X-Amz-SignedHeaders")?.split(";")).toContain("if-none-match");
  });

  it("a deleted upload's URL can write nothing: a placeholder holds its key until the URL expires, then the sweep removes it", async () => {
    const { body } = await api(key, "POST", "/v1/files", { fileName: "late.mp4" });
    const objectKey = `uploads/${body.id}/late.mp4`;
    await env.BUCKET.put(objectKey, "first bytes");
    expect((await api(key, "DELETE", `/v1/files/${body.id}`)).status).toBe(204);
    expect((await env.BUCKET.head(objectKey))?.size).toBe(0);
    // What a PUT with the signed URL does at storage: a conditional write, refused while the key is taken.
    expect(await env.BUCKET.put(objectKey, "late bytes", { onlyIf: new Headers({ "if-none-match": "*" }) })).toBeNull();
    const reclaim = await env.DB.prepare("SELECT reclaim_at FROM object_reclaims WHERE prefix = ?1")
      .bind(`uploads/${body.id}/`)
      .first<{ reclaim_at: string }>();
    expect(Date.parse(reclaim!.reclaim_at)).toBeGreaterThanOrEqual(Date.parse(body.upload.expiresAt));
    await runScheduled(createServices(env), env.BUCKET);
    expect(await env.BUCKET.head(objectKey)).not.toBeNull();
    await env.DB.prepare("UPDATE object_reclaims SET reclaim_at = ?2 WHERE prefix = ?1")
      .bind(`uploads/${body.id}/`, new Date(Date.now() - 1000).toISOString())
      .run();
    await runScheduled(createServices(env), env.BUCKET);
    expect(await env.BUCKET.head(objectKey)).toBeNull();
    expect(
      await env.DB.prepare("SELECT 1 FROM object_reclaims WHERE prefix = ?1").bind(`uploads/${body.id}/`).first(),
    ).toBeNull();
  });

  it("deleting an upload whose URL has expired leaves nothing behind, not even a placeholder", async () => {
    const { body } = await api(key, "POST", "/v1/files", { fileName: "old.mp4" });
    await env.DB.prepare("UPDATE assets SET created_at = ?2 WHERE id = ?1")
      .bind(body.id, new Date(Date.now() - 2 * 3600_000).toISOString())
      .run();
    await env.BUCKET.put(`uploads/${body.id}/old.mp4`, "bytes");
    expect((await api(key, "DELETE", `/v1/files/${body.id}`)).status).toBe(204);
    expect(await env.BUCKET.head(`uploads/${body.id}/old.mp4`)).toBeNull();
    expect(
      await env.DB.prepare("SELECT 1 FROM object_reclaims WHERE prefix = ?1").bind(`uploads/${body.id}/`).first(),
    ).toBeNull();
  });

  it("hides other accounts' files and validates the body", async () => {
    const { body } = await api(key, "POST", "/v1/files", { fileName: "mine.mp4", contentType: "video/mp4" });
    const other = await createAccount();
    expect(await api(other.key, "GET", `/v1/files/${body.id}`)).toMatchObject({
      status: 404,
      body: { code: "NOT_FOUND" },
    });
    const before = await countRows("assets");
    const bad = await api(key, "POST", "/v1/files", { fileName: "../x", contentType: "nope" });
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: { path: string[] }) => d.path)).toEqual([["fileName"], ["contentType"]]);
    expect(
      (await api(key, "POST", "/v1/files", { fileName: "x.mp4", contentType: "video/mp4", size: -1 })).body.details[0]
        .path,
    ).toEqual(["size"]);
    expect(await countRows("assets")).toBe(before);
  });
});

describe("the runner's uploads of directory-output files (local route)", () => {
  let jobId: string;
  beforeAll(async () => {
    const { accountId } = await createAccount();
    jobId = await insertQueuedJob(accountId, {
      outputs: { hls: { fileName: "hls", contentType: "application/vnd.apple.mpegurl", kind: "directory" } },
    });
    await env.DB.prepare("UPDATE jobs SET status = 'running', attempts = 2 WHERE id = ?1").bind(jobId).run();
  });
  const put = (path: string, token: string, opts: { secret?: string | null; attempt?: number; body?: string } = {}) => {
    const secret = opts.secret === undefined ? loadConfig(env).runnerControlSecret! : opts.secret;
    const body = opts.body ?? "#EXTM3U\n";
    return exports.default.fetch(
      `http://ffjobs.test/internal/runner-files/jobs/${jobId}/hls/${opts.attempt ?? 2}/${path}`,
      {
        method: "PUT",
        body,
        headers: {
          authorization: `Bearer ${token}`,
          "content-length": String(body.length),
          ...(secret === null ? {} : { "x-ffjobs-runner-secret": secret }),
        },
      },
    );
  };
  const token = (over: Partial<{ job: string; output: string; attempt: number; nowMs: number }> = {}) =>
    runnerWriteToken(
      loadConfig(env).storage,
      over.job ?? jobId,
      over.output ?? "hls",
      over.attempt ?? 2,
      60,
      over.nowMs,
    );

  it("takes only the runner's own calls: a valid write token without the runner's secret is refused", async () => {
    expect((await put("forged.m3u8", await token(), { secret: null })).status).toBe(404);
    expect((await put("forged.m3u8", await token(), { secret: "f".repeat(64) })).status).toBe(404);
    const notify = await exports.default.fetch(`http://ffjobs.test/internal/runner-notify/jobs/${jobId}`, {
      method: "POST",
    });
    expect(notify.status).toBe(404);
    expect(await env.BUCKET.get(`outputs/${jobId}/hls/forged.m3u8`)).toBeNull();
  });

  it("stores a file with the job's write token for its running attempt, and refuses other jobs', outputs', attempts', read tokens and odd names", async () => {
    const storage = loadConfig(env).storage;
    expect((await put("index.m3u8", await token())).status).toBe(201);
    expect(await (await env.BUCKET.get(`outputs/${jobId}/hls/index.m3u8`))!.text()).toBe("#EXTM3U\n");
    expect((await put("x.m3u8", await token({ job: "2c0d8a4e-0000-4000-8000-000000000008" }))).status).toBe(403);
    expect((await put("x.m3u8", await token({ output: "other" }))).status).toBe(403);
    expect((await put("x.m3u8", await signToken(storage, "read", jobId, "hls/2", Date.now() + 60_000))).status).toBe(
      403,
    );
    expect((await put("x.m3u8", await token({ nowMs: Date.now() - 120_000 }))).status).toBe(403);
    // An earlier attempt's runner (the job was handed to another since) changes nothing.
    expect((await put("x.m3u8", await token({ attempt: 1 }), { attempt: 1 })).status).toBe(409);
    expect((await put(".hidden", await token())).status).toBe(404);
    expect((await put("%2E%2E%2Fescape", await token())).status).toBe(404);
    expect(await env.BUCKET.get(`outputs/${jobId}/hls/x.m3u8`)).toBeNull();
  });

  it("holds the output to its file count while the job runs, and refuses every write once it ended", async () => {
    const limit = loadConfig(env).maxDirectoryFiles;
    await Promise.all(
      Array.from({ length: limit - 1 }, (_, i) => env.BUCKET.put(`outputs/${jobId}/hls/seg_${i}.ts`, "x")),
    );
    expect((await put("last.ts", await token())).status).toBe(413);
    expect((await put("index.m3u8", await token(), { body: "#EXTM3U\n#replaced\n" })).status).toBe(201);
    await env.DB.prepare("UPDATE jobs SET status = 'completed' WHERE id = ?1").bind(jobId).run();
    expect(
      (await put("index.m3u8", await token(), { body: '#EXTM3U\n#EXT-X-MEDIA:URI="http://evil.example/"\n' })).status,
    ).toBe(409);
    expect(await (await env.BUCKET.get(`outputs/${jobId}/hls/index.m3u8`))!.text()).toBe("#EXTM3U\n#replaced\n");
  });
});
