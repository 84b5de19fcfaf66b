import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type Job } from "../../client/src/index.ts";
import { isFinished } from "../support/api-client.ts";
import { useLocalStack } from "../support/local-stack.ts";
import { runFfjobs } from "../support/ffjobs-cli.ts";
import { ffprobeJson } from "../support/media-fixtures.ts";
import { startWebhookReceiver, type ReceivedWebhook } from "../support/webhook-receiver.ts";

/*
 * The end-to-end slice `npm test` runs: one local stack (`npm run dev`'s: wrangler dev, the runner, the
 * host's ffmpeg) and every interface the product has, each used once the way its users use it: the HTTP
 * API (an upload, a held create, a held wait, a download), a signed webhook, the typed client (its event
 * stream too), the CLI on local files, the dashboard and the docs page in a real browser. Each of them in
 * depth is in test/e2e/, which `npm run test:slow` runs.
 */
const { fx, local } = useLocalStack();
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let browser: Browser;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  // Debian's chromium, driven by playwright-core (which downloads no browser of its own).
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox"],
  });
});
afterAll(async () => {
  await browser?.close();
  await receiver?.close();
});

/** The webhooks the receiver got in a mailbox, once there is one. */
async function firstWebhook(box: string): Promise<ReceivedWebhook> {
  for (let i = 0; i < 100; i++) {
    const got = (await (await fetch(`${receiver.url}/_received/${box}`)).json()) as ReceivedWebhook[];
    if (got.length > 0) return got[0];
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no webhook arrived in ${box}`);
}

const ffjobs = (args: string[], cwd: string) => runFfjobs(local.stack, args, cwd);

describe("every interface once, on one local stack", () => {
  it("HTTP API: uploads a file, runs a job on it held to its end, waits for it, downloads the output, and signs its webhook", async () => {
    const { call } = local.api;
    const slot = await call("POST", "/v1/files", { fileName: "clip.mp4", contentType: "video/mp4" });
    expect(slot.status).toBe(201);
    const put = await fetch(slot.body.upload.url, {
      method: "PUT",
      body: readFileSync(fx.clip),
      headers: slot.body.upload.headers,
    });
    expect(put.status).toBe(200);

    const box = crypto.randomUUID();
    const created = await fetch(`${local.stack.baseUrl}/v1/jobs`, {
      method: "POST",
      headers: { Authorization: `Bearer ${local.stack.apiKey}`, "Content-Type": "application/json", Prefer: "wait=60" },
      body: JSON.stringify({
        inputs: { video: { type: "asset", assetId: slot.body.id } },
        outputs: { thumb: { fileName: "thumb.png" } },
        ffmpegArgs: ["-i", "{{video}}", "-vf", "scale=160:-2", "-frames:v", "1", "{{thumb}}"],
        webhookUrl: `${receiver.url}/ok/${box}`,
      }),
    });
    const job = (await created.json()) as Job;
    expect(created.status, JSON.stringify(job)).toBe(200);
    expect(created.headers.get("preference-applied")).toBe("wait=60");
    expect(job).toMatchObject({ status: "completed", errorCode: null });

    const waited = await call("GET", `/v1/jobs/${job.id}?wait=5`);
    expect(waited.body).toMatchObject({ id: job.id, status: "completed" });
    const download = await fetch(job.outputs[0].downloadUrl);
    expect(download.status).toBe(200);
    const thumb = join(mkdtempSync(join(tmpdir(), "ffjobs-slice-")), "thumb.png");
    writeFileSync(thumb, Buffer.from(await download.arrayBuffer()));
    expect(ffprobeJson(thumb).streams[0]).toMatchObject({ codec_name: "png", width: 160 });

    const secret = (await call("GET", "/v1/webhooks/secret")).body.secret;
    const hook = await firstWebhook(box);
    expect(new Webhook(secret).verify(hook.body, hook.headers)).toMatchObject({
      type: "job.completed",
      data: { id: job.id, status: "completed" },
    });
  });

  it("the typed client: runs an ffprobe job on a URL input and follows its event stream to the end", async () => {
    const client = createClient({ baseUrl: local.stack.baseUrl, apiKey: local.stack.apiKey });
    const accepted = await client.createJob({
      binary: "ffprobe",
      inputs: { a: { type: "url", url: `${local.media.url}/clip.mp4` } },
      ffmpegArgs: ["-v", "error", "-show_streams", "-of", "json", "{{a}}"],
    });
    const events = [];
    for await (const e of client.events(accepted.id)) events.push(e);
    expect(events.at(-1)).toMatchObject({ event: "status", job: { id: accepted.id, status: "completed" } });
    const result = await client.getResult(accepted.id);
    expect(result.exitCode).toBe(0);
    expect(JSON.stringify(result.probe)).toContain('"codec_name":"h264"');
  });

  it("the CLI: runs an ffmpeg command on a local file and writes its output beside it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ffjobs-slice-cli-"));
    const r = await ffjobs(["ffmpeg", "-i", fx.clip, "-vf", "scale=64:-2", "-frames:v", "1", "poster.png"], dir);
    expect(r.code, r.stderr).toBe(0);
    expect(ffprobeJson(join(dir, "poster.png")).streams[0]).toMatchObject({ codec_name: "png", width: 64 });
  });

  it("the dashboard in a browser: signs in and shows a preset job's page with its output", async () => {
    const created = await local.api.call("POST", "/v1/jobs", {
      mode: "preset",
      preset: "thumbnail",
      inputs: { video: { type: "url", url: `${local.media.url}/clip.mp4` } },
      params: { width: 96 },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    await local.api.waitUntil(created.body.id, isFinished);
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.goto(`${local.stack.baseUrl}/dashboard/`);
    await page.getByLabel("API key").fill(local.stack.apiKey);
    await page.getByRole("button", { name: "Sign in" }).click();
    // exact: the page's own heading, "ffjobs", contains "jobs" too
    await page.getByRole("heading", { name: "Jobs", exact: true }).waitFor();
    await page.goto(`${local.stack.baseUrl}/dashboard/#/jobs/${created.body.id}`);
    await page.locator("#job-status", { hasText: "completed" }).waitFor();
    const image = page.getByRole("img", { name: "Output thumbnail" });
    await image.waitFor();
    const naturalWidth = (el: unknown) => {
      const img = el as { decode(): Promise<void>; naturalWidth: number };
      return img.decode().then(() => img.naturalWidth);
    };
    expect(await image.evaluate(naturalWidth)).toBe(96);
    await page.close();
  });

  it("the docs page in a browser: renders every operation of the served OpenAPI document", async () => {
    const doc = (await (await fetch(`${local.stack.baseUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    const operations = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
    expect(operations.length).toBeGreaterThan(20);
    const page = await browser.newPage();
    await page.goto(`${local.stack.baseUrl}/docs`);
    for (const id of operations) await page.locator(`[id="${id}"]`).waitFor({ state: "attached" });
    await page.close();
  });
});
