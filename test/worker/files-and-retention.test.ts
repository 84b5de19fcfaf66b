import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { runScheduled } from "../../src/maintenance/scheduled.ts";
import { createServices } from "../../src/services.ts";
import { deleteFinishedJob } from "../../src/storage/delete-asset.ts";
import { api, createAccount, insertQueuedJob } from "./helpers.ts";

let key: string;
let accountId: string;
beforeAll(async () => {
  ({ key, accountId } = await createAccount());
});

/** An upload slot whose bytes are in the bucket (as after the client's PUT). */
async function uploaded(fileName = "clip.mp4") {
  const res = await api(key, "POST", "/v1/files", { fileName });
  const row = await env.DB.prepare("SELECT object_key FROM assets WHERE id = ?1")
    .bind(res.body.id)
    .first<{ object_key: string }>();
  await env.BUCKET.put(row!.object_key, "bytes");
  return { id: res.body.id as string, objectKey: row!.object_key, body: res.body };
}

/** A completed job with one stored output (a file, or a directory of files), written as the coordinator would. */
async function finishedJobWithOutput(opts: { directory?: boolean; expiresAt?: string } = {}) {
  const jobId = await insertQueuedJob(accountId);
  const assetId = crypto.randomUUID();
  const now = new Date().toISOString();
  const files = opts.directory ? ["index.m3u8", "index0.ts"] : ["out.mp4"];
  for (const f of files) await env.BUCKET.put(`outputs/${jobId}/out/${f}`, "bytes");
  await env.DB.batch([
    env.DB.prepare("UPDATE jobs SET status = 'completed', finished_at = ?2 WHERE id = ?1").bind(jobId, now),
    env.DB.prepare(
      `INSERT INTO assets (id, account_id, origin, job_id, file_name, content_type, size, status, object_key, created_at, expires_at)
       VALUES (?1, ?2, 'output', ?3, ?4, 'video/mp4', 5, 'ready', ?5, ?6, ?7)`,
    ).bind(
      assetId,
      accountId,
      jobId,
      files[0],
      `outputs/${jobId}/out/${files[0]}`,
      now,
      opts.expiresAt ?? new Date(Date.now() + 86_400_000).toISOString(),
    ),
    env.DB.prepare(
      `INSERT INTO job_outputs (id, job_id, asset_id, label, content_type, kind, created_at, files_json, main_file) VALUES (?1, ?2, ?3, 'out', 'video/mp4', ?4, ?5, ?6, ?7)`,
    ).bind(
      crypto.randomUUID(),
      jobId,
      assetId,
      opts.directory ? "directory" : "file",
      now,
      opts.directory ? JSON.stringify(files.map((path) => ({ path, size: 5 }))) : null,
      opts.directory ? files[0] : null,
    ),
  ]);
  return { jobId, assetId };
}

const stored = async (prefix: string) => (await env.BUCKET.list({ prefix })).objects.length;

describe("files", () => {
  it("infers contentType from the file name and says when the file expires", async () => {
    const { body } = await uploaded("talk.mp3");
    expect(body).toMatchObject({
      contentType: "audio/mpeg",
      origin: "upload",
      jobId: null,
      status: "pending",
      upload: { headers: { "Content-Type": "audio/mpeg" } },
    });
    const days = (Date.parse(body.expiresAt) - Date.parse(body.createdAt)) / 86_400_000;
    expect(days).toBeCloseTo(7, 5);
  });

  it("lists an account's files newest first in keyset pages, by origin", async () => {
    const { key: own } = await createAccount();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await api(own, "POST", "/v1/files", { fileName: `f${i}.mp4` })).body.id);
    const first = await api(own, "GET", "/v1/files?limit=2");
    const second = await api(own, "GET", `/v1/files?limit=2&cursor=${first.body.nextCursor}`);
    const listed = [...first.body.data, ...second.body.data];
    expect(listed.map((f: any) => f.id).sort()).toEqual([...ids].sort());
    expect(listed.map((f: any) => f.createdAt)).toEqual(
      listed
        .map((f: any) => f.createdAt)
        .sort()
        .reverse(),
    );
    expect(second.body.nextCursor).toBeNull();
    expect((await api(own, "GET", "/v1/files?origin=output")).body.data).toEqual([]);
    expect((await api(own, "GET", "/v1/files?origin=nope")).status).toBe(400);
  });

  it("DELETE removes an upload's bytes and record; one a running or queued job uses is 409 FILE_IN_USE", async () => {
    const free = await uploaded();
    expect((await api(key, "DELETE", `/v1/files/${free.id}`)).status).toBe(204);
    expect((await api(key, "GET", `/v1/files/${free.id}`)).status).toBe(404);
    // The bytes are gone: what stays is a zero-byte placeholder while its upload URL lives (files.test.ts).
    expect((await env.BUCKET.head(free.objectKey))?.size).toBe(0);
    const used = await uploaded();
    await insertQueuedJob(accountId, { inputs: { a: { type: "asset", assetId: used.id } } });
    const refused = await api(key, "DELETE", `/v1/files/${used.id}`);
    expect(refused).toMatchObject({ status: 409, body: { code: "FILE_IN_USE" } });
    expect(await env.BUCKET.head(used.objectKey)).not.toBeNull();
    expect((await api(key, "DELETE", `/v1/files/${crypto.randomUUID()}`)).status).toBe(404);
  });

  it("DELETE of an output removes it from its job, with every file of a directory output", async () => {
    const { jobId, assetId } = await finishedJobWithOutput({ directory: true });
    expect((await api(key, "GET", `/v1/jobs/${jobId}`)).body.outputs).toHaveLength(1);
    expect((await api(key, "DELETE", `/v1/files/${assetId}`)).status).toBe(204);
    expect((await api(key, "GET", `/v1/jobs/${jobId}`)).body.outputs).toEqual([]);
    expect(await stored(`outputs/${jobId}/`)).toBe(0);
  });
});

describe("DELETE /v1/jobs/{id}", () => {
  it("deletes a finished job with its outputs; a queued one is 409 JOB_NOT_FINISHED", async () => {
    const { jobId, assetId } = await finishedJobWithOutput();
    expect(await stored(`outputs/${jobId}/`)).toBe(1);
    expect((await api(key, "DELETE", `/v1/jobs/${jobId}`)).status).toBe(204);
    expect((await api(key, "GET", `/v1/jobs/${jobId}`)).status).toBe(404);
    expect((await api(key, "GET", `/v1/files/${assetId}`)).status).toBe(404);
    expect(await stored(`outputs/${jobId}/`)).toBe(0);
    const queued = await insertQueuedJob(accountId);
    expect(await api(key, "DELETE", `/v1/jobs/${queued}`)).toMatchObject({
      status: 409,
      body: { code: "JOB_NOT_FINISHED", status: "queued" },
    });
    const { key: other } = await createAccount();
    expect((await api(other, "DELETE", `/v1/jobs/${queued}`)).status).toBe(404);
  });

  it("deletes a finished split job: its tasks, outputs and work files go, rows before bytes, no 500", async () => {
    const { jobId, assetId } = await finishedJobWithOutput();
    await env.BUCKET.put(`work/${jobId}/segment-0.ts`, "bytes");
    const task =
      "INSERT INTO job_tasks (job_id, name, needs_json, params_json, status) VALUES (?1, ?2, '[]', '{}', 'completed')";
    await env.DB.batch(["segment-0", "segment-1", "join"].map((name) => env.DB.prepare(task).bind(jobId, name)));
    expect((await api(key, "GET", `/v1/jobs/${jobId}/tasks`)).body.data).toHaveLength(3);
    expect((await api(key, "DELETE", `/v1/jobs/${jobId}`)).status).toBe(204);
    expect((await api(key, "GET", `/v1/jobs/${jobId}`)).status).toBe(404);
    expect((await api(key, "GET", `/v1/files/${assetId}`)).status).toBe(404);
    const listed = (await api(key, "GET", "/v1/files?origin=output&limit=100")).body.data;
    expect(listed.map((f: any) => f.jobId)).not.toContain(jobId);
    expect(await env.DB.prepare("SELECT COUNT(*) AS n FROM job_tasks WHERE job_id = ?1").bind(jobId).first("n")).toBe(
      0,
    );
    expect(await stored(`outputs/${jobId}/`)).toBe(0);
    expect(await stored(`work/${jobId}/`)).toBe(0);
    expect(
      await env.DB.prepare("SELECT COUNT(*) AS n FROM object_reclaims WHERE prefix LIKE ?1")
        .bind(`%${jobId}%`)
        .first("n"),
    ).toBe(0);
  });

  it("drops the rows even when storage fails after them; the scheduled sweep deletes the bytes left behind", async () => {
    const { jobId, assetId } = await finishedJobWithOutput();
    const failing = new Proxy(env.BUCKET, {
      get: (target, prop) =>
        prop === "delete" ? () => Promise.reject(new Error("storage is down")) : Reflect.get(target, prop).bind(target),
    });
    expect(await deleteFinishedJob(env.DB, failing, jobId)).toBe(true);
    expect((await api(key, "GET", `/v1/jobs/${jobId}`)).status).toBe(404);
    expect((await api(key, "GET", `/v1/files/${assetId}`)).status).toBe(404);
    expect(await stored(`outputs/${jobId}/`)).toBe(1);
    await runScheduled(createServices(env), env.BUCKET);
    expect(await stored(`outputs/${jobId}/`)).toBe(0);
    expect(
      await env.DB.prepare("SELECT COUNT(*) AS n FROM object_reclaims WHERE prefix LIKE ?1")
        .bind(`%${jobId}%`)
        .first("n"),
    ).toBe(0);
  });
});

describe("retention", () => {
  it("deletes expired bytes on the scheduled run and marks the records expired; outputs leave their job", async () => {
    const upload = await uploaded();
    const output = await finishedJobWithOutput({
      directory: true,
      expiresAt: new Date(Date.now() - 1000).toISOString(),
    });
    await env.DB.prepare("UPDATE assets SET expires_at = ?2 WHERE id = ?1")
      .bind(upload.id, new Date(Date.now() - 1000).toISOString())
      .run();
    const keep = await uploaded();
    await runScheduled(createServices(env), env.BUCKET);
    expect(await env.BUCKET.head(upload.objectKey)).toBeNull();
    expect(await stored(`outputs/${output.jobId}/`)).toBe(0);
    expect((await api(key, "GET", `/v1/files/${upload.id}`)).body.status).toBe("expired");
    expect((await api(key, "GET", `/v1/files/${output.assetId}`)).body.status).toBe("expired");
    expect((await api(key, "GET", `/v1/jobs/${output.jobId}`)).body.outputs).toEqual([]);
    expect(await env.BUCKET.head(keep.objectKey)).not.toBeNull();
    // A second run finds nothing more to do.
    await runScheduled(createServices(env), env.BUCKET);
    expect((await api(key, "GET", `/v1/files/${keep.id}`)).body.status).not.toBe("expired");
  });

  it("never issues a download URL that outlives the output's retention", async () => {
    const { jobId } = await finishedJobWithOutput({ expiresAt: new Date(Date.now() + 600_000).toISOString() });
    // A local stack's download URL (src/storage/local-downloads.ts): its token carries its expiry.
    const url = new URL((await api(key, "GET", `/v1/jobs/${jobId}`)).body.outputs[0].downloadUrl);
    expect(url.pathname).toMatch(/^\/local-downloads\//);
    expect(Number(url.pathname.split("/")[2].split(".")[0]) * 1000).toBeLessThanOrEqual(Date.now() + 601_000);
    const later = await finishedJobWithOutput({
      directory: true,
      expiresAt: new Date(Date.now() + 120_000).toISOString(),
    });
    const token = new URL(
      (await api(key, "GET", `/v1/jobs/${later.jobId}`)).body.outputs[0].downloadUrl,
    ).pathname.split("/")[4];
    expect(Number(token.split(".")[0]) * 1000).toBeLessThanOrEqual(Date.now() + 121_000);
  });
});

describe("retention and deletion keep records and jobs consistent", () => {
  it("refuses an expired upload as an input, and never expires or deletes a file a running or queued job reads", async () => {
    const expired = await uploaded();
    await env.DB.prepare("UPDATE assets SET expired_at = ?2 WHERE id = ?1")
      .bind(expired.id, new Date().toISOString())
      .run();
    const refused = await api(key, "POST", "/v1/jobs", {
      inputs: { a: { type: "asset", assetId: expired.id } },
      ffmpegArgs: ["-i", "{{a}}", "-f", "null", "-"],
    });
    expect(refused.body.details).toEqual([
      expect.objectContaining({ path: ["inputs", "a", "assetId"], message: expect.stringMatching(/expired/) }),
    ]);

    const { assetId: output } = await finishedJobWithOutput({ expiresAt: new Date(Date.now() - 1000).toISOString() });
    const reader = await insertQueuedJob(accountId, { inputs: { a: { type: "asset", assetId: output } } });
    expect(await api(key, "DELETE", `/v1/files/${output}`)).toMatchObject({
      status: 409,
      body: { code: "FILE_IN_USE" },
    });
    await runScheduled(createServices(env), env.BUCKET);
    expect((await api(key, "GET", `/v1/files/${output}`)).body.status).not.toBe("expired");
    await env.DB.prepare("UPDATE jobs SET status = 'canceled', finished_at = ?2 WHERE id = ?1")
      .bind(reader, new Date().toISOString())
      .run();
    await runScheduled(createServices(env), env.BUCKET);
    expect((await api(key, "GET", `/v1/files/${output}`)).body.status).toBe("expired");
  });
});
