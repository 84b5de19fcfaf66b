import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, isFinished } from "../support/api-client.ts";
import { startDevStack, type DevStack } from "../support/dev-stack.ts";
import { mediaFixtures } from "../support/media-fixtures.ts";
import { startStaticServer } from "../support/static-server.ts";
import { startWebhookReceiver } from "../support/webhook-receiver.ts";
import { Webhook } from "standardwebhooks";
import { AwsClient } from "aws4fetch";

const fx = mediaFixtures();
let stack: DevStack;
let media: Awaited<ReturnType<typeof startStaticServer>>;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let call: ReturnType<typeof apiClient>["call"];
let waitUntil: ReturnType<typeof apiClient>["waitUntil"];

beforeAll(async () => {
  media = await startStaticServer(fx.dir);
  receiver = await startWebhookReceiver();
  stack = await startDevStack({ ALLOWED_PRIVATE_HOSTS: "127.0.0.1", RUNNER_POLL_INTERVAL_MS: "200" });
  ({ call, waitUntil } = apiClient(stack.baseUrl, stack.apiKey));
});
afterAll(async () => {
  await stack?.stop();
  await media?.close();
  await receiver?.close();
});

const finished = isFinished;

describe("end to end over HTTP through the local stack (wrangler dev + runner + host ffmpeg)", () => {
  it("uploads an asset, mixes it with a loopback URL input, transcodes, and serves a downloadable output", async () => {
    const slot = await call("POST", "/v1/files", { fileName: "clip.mp4", contentType: "video/mp4" });
    expect(slot.status).toBe(201);
    const put = await fetch(slot.body.upload.url, {
      method: "PUT",
      body: readFileSync(fx.clip),
      headers: slot.body.upload.headers,
    });
    expect(put.status).toBe(200);
    expect((await call("GET", `/v1/files/${slot.body.id}`)).body).toMatchObject({
      status: "ready",
      size: readFileSync(fx.clip).length,
    });

    const created = await call("POST", "/v1/jobs", {
      inputs: { video: { type: "asset", assetId: slot.body.id }, music: { type: "url", url: `${media.url}/tone.wav` } },
      outputs: { out: { fileName: "mixed.mp4" }, thumb: { fileName: "thumb.png" } },
      ffmpegArgs: [
        "-i",
        "{{video}}",
        "-i",
        "{{music}}",
        "-map",
        "0:v",
        "-map",
        "1:a",
        "-vf",
        "scale=160:-2",
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        "-c:a",
        "aac",
        "-shortest",
        "{{out}}",
        "-map",
        "0:v",
        "-frames:v",
        "1",
        "{{thumb}}",
      ],
    });
    expect(created.status).toBe(202);
    const job = await waitUntil(created.body.id, finished);
    expect(job).toMatchObject({ status: "completed", errorCode: null });
    expect(job.outputs.map((o: any) => o.label).sort()).toEqual(["out", "thumb"]);
    const out = job.outputs.find((o: any) => o.label === "out");
    expect(out).toMatchObject({ kind: "file", contentType: "video/mp4", jobId: job.id });
    expect(out.metadata.streams.find((s: any) => s.type === "video")).toMatchObject({
      codec: "h264",
      width: 160,
      height: 120,
    });

    const download = await fetch(out.downloadUrl);
    expect(download.status).toBe(200);
    const path = join(tmpdir(), `ffjobs-e2e-${job.id}.mp4`);
    writeFileSync(path, Buffer.from(await download.arrayBuffer()));
    const probed = JSON.parse(
      execFileSync("ffprobe", ["-v", "error", "-print_format", "json", "-show_streams", path], { encoding: "utf8" }),
    );
    expect(probed.streams.map((s: any) => s.codec_name).sort()).toEqual(["aac", "h264"]);

    // Served by the local stack's download route: an attachment, never a page of the API's origin.
    expect(download.headers.get("content-disposition")).toBe('attachment; filename="mixed.mp4"');
    expect(download.headers.get("x-content-type-options")).toBe("nosniff");
    const tampered = out.downloadUrl.replace(
      /\/local-downloads\/(\d+)\./,
      (_m: string, e: string) => `/local-downloads/${Number(e) + 1}.`,
    );
    expect((await fetch(tampered)).status).toBe(403);
    const otherKey = out.downloadUrl.replace(/\/mixed\.mp4/, "/other.mp4");
    expect((await fetch(otherKey)).status).toBe(403);
  });

  it("returns an ffprobe job's parsed JSON in its result", async () => {
    const created = await call("POST", "/v1/jobs", {
      binary: "ffprobe",
      input: [{ type: "url", url: `${media.url}/clip.mp4` }],
      ffmpegArgs: ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", "{{input0}}"],
    });
    await waitUntil(created.body.id, finished);
    const result = await call("GET", `/v1/jobs/${created.body.id}/result`);
    expect(result.body).toMatchObject({ status: "completed", binary: "ffprobe", exitCode: 0 });
    expect(Number(result.body.probe.format.duration)).toBeCloseTo(3, 0);
    expect(result.body.runtimeSeconds).toBeGreaterThanOrEqual(1);
  });

  it("signs storage with credentials of its own run: the repository's constant ones are refused", async () => {
    const slot = await call("POST", "/v1/files", { fileName: "page.html", contentType: "text/html" });
    expect(
      (
        await fetch(slot.body.upload.url, {
          method: "PUT",
          body: "<script>parent.x=1</script>",
          headers: slot.body.upload.headers,
        })
      ).status,
    ).toBe(200);
    const constant = new AwsClient({
      accessKeyId: "local-dev-access-key",
      secretAccessKey: "local-dev-secret-key",
      service: "s3",
      region: "auto",
    });
    const object = new URL(slot.body.upload.url);
    object.search = "";
    object.searchParams.set("X-Amz-Expires", "600");
    const forged = await constant.sign(object.href, { method: "GET", aws: { signQuery: true } });
    expect([401, 403]).toContain((await fetch(forged.url)).status);
    // miniflare's own endpoints on this origin (second attack pass, F3): its public R2 reader would serve the
    // page inline with no credential, its explorer would run SQL on D1. The stack's front door refuses both.
    const key = `uploads/${slot.body.id}/page.html`;
    for (const path of [
      `/cdn-cgi/local/r2/public/ffjobs-media/${key}`,
      `/cdn-cgi/local/%72%32/public/ffjobs-media/${key}`,
      "/cdn-cgi/local/explorer/api/r2/buckets",
      "/cdn-cgi/local/explorer/api/d1/database/DB/raw",
      "/CDN-CGI/local/explorer/api/r2/buckets",
    ]) {
      const r = await fetch(`${stack.baseUrl}${path}`, {
        method: path.endsWith("/raw") ? "POST" : "GET",
        headers: { "content-type": "application/json" },
        body: path.endsWith("/raw") ? JSON.stringify({ sql: "SELECT 1" }) : undefined,
      });
      expect(r.status, path).toBe(404);
      expect(await r.text()).not.toContain("<script>");
    }
    // An upload URL is not a copy primitive (F1): with x-amz-copy-source it would copy another object into the slot.
    const other = await call("POST", "/v1/files", { fileName: "stolen.html", contentType: "text/html" });
    const copied = await fetch(other.body.upload.url, {
      method: "PUT",
      headers: { "x-amz-copy-source": `/ffjobs-media/${key}` },
    });
    expect(copied.status).toBe(403);
    expect((await call("GET", `/v1/files/${other.body.id}`)).body.size ?? null).toBeNull();
  });

  it("never serves a job's file inline as a page of the API's origin, whatever type it was declared", async () => {
    const created = await call("POST", "/v1/jobs", {
      inputs: { subs: { type: "url", url: `${media.url}/subs.srt` } },
      outputs: { page: { fileName: "page.vtt", contentType: "text/html" } },
      ffmpegArgs: ["-i", "{{subs}}", "{{page}}"],
    });
    const job = await waitUntil(created.body.id, finished);
    expect(job.status, JSON.stringify(job)).toBe("completed");
    const res = await fetch(job.outputs[0].downloadUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toMatch(/^attachment;/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-security-policy")).toBe("sandbox; default-src 'none'");
  });

  it("gives a failing command a clear error", async () => {
    const created = await call("POST", "/v1/jobs", {
      inputs: { a: { type: "url", url: `${media.url}/clip.mp4` } },
      outputs: { o: { fileName: "o.mp4" } },
      // An allowed filter asked for the impossible: the policy lets it through, ffmpeg fails on it.
      ffmpegArgs: ["-i", "{{a}}", "-vf", "crop=9999:9999", "{{o}}"],
    });
    const job = await waitUntil(created.body.id, finished);
    expect(job).toMatchObject({ status: "failed", errorCode: "PROCESS_FAILED", outputs: [] });
    expect(job.errorMessage).toMatch(/ffmpeg exited with code \d+: .*(too big|crop)/i);
  });

  it("cancels a running job", async () => {
    const created = await call("POST", "/v1/jobs", {
      inputs: { a: { type: "url", url: `${media.url}/long.mp4` } },
      ffmpegArgs: ["-re", "-i", "{{a}}", "-f", "null", "-"],
    });
    await waitUntil(created.body.id, (j) => j.status === "running");
    const canceled = await call("POST", `/v1/jobs/${created.body.id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body.status).toBe("canceled");
    expect((await call("GET", `/v1/jobs/${created.body.id}`)).body.status).toBe("canceled");
  });

  it("delivers a signed job.completed webhook that the standard library verifies", async () => {
    const box = crypto.randomUUID();
    const secret = (await call("GET", "/v1/webhooks/secret")).body.secret;
    const created = await call("POST", "/v1/jobs", {
      binary: "ffprobe",
      input: [{ type: "url", url: `${media.url}/tone.wav` }],
      ffmpegArgs: ["-v", "error", "-show_format", "{{input0}}"],
      webhookUrl: `${receiver.url}/ok/${box}`,
    });
    const job = await waitUntil(created.body.id, finished);
    let received: { headers: Record<string, string>; body: string }[] = [];
    for (let i = 0; i < 100 && received.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      received = await (await fetch(`${receiver.url}/_received/${box}`)).json();
    }
    expect(received).toHaveLength(1);
    const event = new Webhook(secret).verify(received[0].body, received[0].headers) as {
      type: string;
      data: { id: string; status: string };
    };
    expect(event).toMatchObject({ type: "job.completed", data: { id: job.id, status: "completed" } });
    const log = (await call("GET", `/v1/webhooks/deliveries?jobId=${job.id}`)).body.data;
    expect(log[0]).toMatchObject({
      status: "succeeded",
      eventId: received[0].headers["webhook-id"],
      attempts: [{ httpStatus: 204 }],
    });
  });

  it("creates and revokes API keys with the keys CLI", async () => {
    const root = resolve(import.meta.dirname, "../..");
    // Not spawnSync: a blocked event loop misses the server closing an idle connection, and the next request on it fails.
    const keys = (...args: string[]) =>
      promisify(execFile)(process.execPath, [join(root, "scripts/keys.ts"), ...args, "--local"], {
        cwd: root,
        env: stack.env,
      });
    const created = await keys("create", "--account", "e2e-keys");
    const key = created.stdout.trim().split("\n").pop()!;
    expect(key).toMatch(/^ffj_[A-Za-z0-9_-]{43}$/);
    expect((await call("GET", "/v1/jobs", undefined, key)).status).toBe(200);
    await keys("revoke", "--key", key);
    expect((await call("GET", "/v1/jobs", undefined, key)).status).toBe(401);
  });
});
