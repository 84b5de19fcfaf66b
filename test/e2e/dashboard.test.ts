import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { promisify } from "node:util";
import { dirname, join, resolve } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MULTIPART_THRESHOLD_BYTES, verifyReceipt } from "../../client/src/index.ts";
import { useLocalStack } from "../support/local-stack.ts";
import { accessibilityProblems } from "../support/axe-check.ts";
import { startWebhookReceiver } from "../support/webhook-receiver.ts";

/**
 * The dashboard in a real browser: Debian's chromium, driven by playwright-core (which downloads no
 * browser of its own). Screenshots go to .cache/test-artifacts/dashboard/.
 */
const { fx, local } = useLocalStack();
const root = resolve(import.meta.dirname, "../..");
const artifacts = join(root, ".cache/test-artifacts/dashboard");
let browser: Browser;
let page: Page;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

beforeAll(async () => {
  mkdirSync(artifacts, { recursive: true });
  receiver = await startWebhookReceiver();
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox"],
  });
  page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
});
afterAll(async () => {
  await browser?.close();
  await receiver?.close();
});

/** The dashboard signed in with the stack's key (a test run alone has not been through the sign-in test). */
async function signedIn(p: Page): Promise<void> {
  await p.goto(`${local.stack.baseUrl}/dashboard/`);
  const key = p.getByLabel("API key");
  // exact: the page's own heading, "ffjobs", contains "jobs" too
  const jobs = p.getByRole("heading", { name: "Jobs", exact: true });
  await key.or(jobs).first().waitFor();
  if (await jobs.isVisible()) return;
  await key.fill(local.stack.apiKey);
  await p.getByRole("button", { name: "Sign in" }).click();
  await jobs.waitFor();
}

describe("the dashboard in a real browser", () => {
  it("is served with a strict CSP and may not be framed: an injected inline script does not run", async () => {
    for (const path of ["/dashboard/", "/dashboard/app.js"]) {
      const res = await fetch(`${local.stack.baseUrl}${path}`);
      expect(res.headers.get("content-security-policy"), path).toMatch(
        /default-src 'none'; script-src 'self';.*frame-ancestors 'none'/,
      );
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      await res.body?.cancel();
    }
    await page.goto(`${local.stack.baseUrl}/dashboard/`);
    await page.getByLabel("API key").waitFor();
    const ran = await page.evaluate(`(() => {
      const s = document.createElement("script");
      s.textContent = "window.__injected = true";
      document.head.append(s);
      return window.__injected ?? false;
    })()`);
    expect(ran).toBe(false);
  });

  it("signs in, uploads a file, runs a preset job to 100 %, shows its output, and redelivers its webhook", async () => {
    await page.goto(`${local.stack.baseUrl}/dashboard/`);
    await page.getByLabel("API key").waitFor();
    expect(await accessibilityProblems(page)).toEqual([]);
    await page.getByLabel("API key").fill("ffj_wrong");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").waitFor();
    await page.getByLabel("API key").fill(local.stack.apiKey);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Jobs", exact: true }).waitFor();
    await page.screenshot({ path: join(artifacts, "jobs.png") });

    await page.getByRole("link", { name: "New job" }).click();
    await page.getByLabel("Preset", { exact: true }).selectOption("thumbnail");
    await page.getByLabel("Input file").setInputFiles(fx.clip);
    await page.getByLabel("Parameters (JSON)").fill('{"width": 120, "percent": 50}');
    await page.getByLabel("Webhook URL (optional)").fill(`${receiver.url}/ok/dashboard`);
    expect(await accessibilityProblems(page)).toEqual([]);
    await page.getByRole("button", { name: "Upload and run" }).click();
    await page.waitForURL(/#\/jobs\/[0-9a-f-]{36}$/);
    await page.locator("#job-status", { hasText: "completed" }).waitFor({ timeout: 60_000 });
    expect(await page.locator("#progress").evaluate((el: any) => el.value)).toBe(100);
    const image = page.getByRole("img", { name: "Output thumbnail" });
    await image.waitFor();
    expect(await image.evaluate((el: any) => el.decode().then(() => el.naturalWidth))).toBe(120);
    const href = await page.locator("a.download").first().getAttribute("href");
    expect((await fetch(href!)).status).toBe(200);
    expect(await accessibilityProblems(page)).toEqual([]);
    await page.screenshot({ path: join(artifacts, "job.png"), fullPage: true });

    await page.getByRole("link", { name: "Webhooks" }).click();
    const redeliver = page.getByRole("button", { name: /^Redeliver job\.completed/ }).first();
    await redeliver.click();
    await page
      .getByRole("button", { name: /^Redelivery of job\.completed .* queued$/ })
      .first()
      .waitFor();
    for (let i = 0; i < 100; i++) {
      const got = (await (await fetch(`${receiver.url}/_received/dashboard`)).json()) as unknown[];
      if (got.length >= 2) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(
      ((await (await fetch(`${receiver.url}/_received/dashboard`)).json()) as unknown[]).length,
    ).toBeGreaterThanOrEqual(2);
    await page.screenshot({ path: join(artifacts, "webhooks.png") });
  }, 120_000);

  it("runs a raw ffmpeg command on an uploaded file and plays its video output", async () => {
    await page.goto(`${local.stack.baseUrl}/dashboard/#/new`);
    await page.getByLabel("Kind of job").selectOption("raw");
    await page
      .getByLabel(/^Arguments/)
      .fill("-i {{input}} -t 1 -vf scale=160:-2 -c:v libx264 -preset ultrafast -an {{out}}");
    await page.getByLabel("Output file name").fill("small.mp4");
    await page.getByLabel("Input file").setInputFiles(fx.clip);
    await page.getByRole("button", { name: "Upload and run" }).click();
    await page.locator("#job-status", { hasText: "completed" }).waitFor({ timeout: 60_000 });
    const video = page.locator("video");
    await video.waitFor();
    expect(
      await video.evaluate(
        (el: any) =>
          new Promise((ok) =>
            el.readyState >= 1 ? ok(el.videoWidth) : el.addEventListener("loadedmetadata", () => ok(el.videoWidth)),
          ),
      ),
    ).toBe(160);
  }, 90_000);

  it("uploads a file over the multipart threshold in parts, with progress, and runs a job on it", async () => {
    // 34 raw 1080p frames in NUT: 101 MiB of real media, made in a moment (no encoding).
    const big = join(mkdtempSync(join(tmpdir(), "ffjobs-dashboard-")), "big-input.nut");
    await promisify(execFile)("ffmpeg", [
      "-v",
      "error",
      "-y",
      "-f",
      "lavfi",
      "-i",
      "testsrc2=size=1920x1080:rate=10",
      "-frames:v",
      "34",
      "-c:v",
      "rawvideo",
      "-pix_fmt",
      "yuv420p",
      "-f",
      "nut",
      big,
    ]);
    const size = statSync(big).size;
    expect(size).toBeGreaterThan(MULTIPART_THRESHOLD_BYTES);
    const puts: URL[] = [];
    const onRequest = (r: { method: () => string; url: () => string }) =>
      void (r.method() === "PUT" && puts.push(new URL(r.url())));
    page.on("request", onRequest);
    try {
      await page.setViewportSize({ width: 1200, height: 900 });
      await signedIn(page);
      await page.goto(`${local.stack.baseUrl}/dashboard/#/new`);
      await page.getByLabel("Kind of job").selectOption("raw");
      await page.getByLabel(/^Arguments/).fill("-i {{input}} -frames:v 1 -vf scale=160:-2 {{out}}");
      await page.getByLabel("Output file name").fill("frame.jpg");
      await page.getByLabel("Input file").setInputFiles(big);
      // The form is replaced by the job's page once the upload ends: its bar is read as it moves.
      await page.evaluate(`(() => {
        window.__uploadProgress = [];
        const bar = document.getElementById("upload-progress");
        window.__uploadTimer = setInterval(() => window.__uploadProgress.push(bar.value), 20);
      })()`);
      await page.getByRole("button", { name: "Upload and run" }).click();
      await page.waitForURL(/#\/jobs\/[0-9a-f-]{36}$/, { timeout: 90_000 });
      await page.locator("#job-status", { hasText: "completed" }).waitFor({ timeout: 60_000 });
      const seen = (await page.evaluate("(clearInterval(window.__uploadTimer), window.__uploadProgress)")) as number[];
      expect(
        seen.some((v) => v > 0 && v < 100),
        `progress seen: ${seen.join(",")}`,
      ).toBe(true);
      expect(seen).toEqual([...seen].sort((a, b) => a - b));
      const image = page.getByRole("img", { name: /^Output / });
      await image.waitFor();
      expect(await image.evaluate((el: any) => el.decode().then(() => el.naturalWidth))).toBe(160);
    } finally {
      page.off("request", onRequest);
      rmSync(dirname(big), { recursive: true, force: true });
    }
    // Every byte went up as parts (UploadPart carries partNumber and uploadId), none as one PUT.
    expect(puts.length).toBe(Math.ceil(size / (16 * 1024 ** 2)));
    expect(puts.every((u) => u.searchParams.has("partNumber") && u.searchParams.has("uploadId"))).toBe(true);
    const jobId = /#\/jobs\/([0-9a-f-]{36})$/.exec(page.url())![1];
    const job = (await local.api.call("GET", `/v1/jobs/${jobId}`)).body as any;
    const asset = (await local.api.call("GET", `/v1/files/${job.inputs.input.assetId}`)).body;
    expect(asset).toMatchObject({ status: "ready", size, fileName: "big-input.nut" });
  }, 180_000);

  it("lists each job's command, run time and credits; a job page has its command line to copy, its phases and an HLS player", async () => {
    const job = await local.runToEnd({
      mode: "preset",
      preset: "hls-ladder",
      params: { renditions: [144], segmentSeconds: 1 },
      inputs: { video: { type: "url", url: `${local.media.url}/${fx.clip.split("/").pop()}` } },
    });
    expect(job.status, JSON.stringify(job)).toBe("completed");
    const context = await browser.newContext({
      viewport: { width: 1200, height: 900 },
      permissions: ["clipboard-read", "clipboard-write"],
    });
    const tab = await context.newPage();
    try {
      await signedIn(tab);
      const row = tab.locator("tr", { has: tab.getByRole("link", { name: job.id.slice(0, 8) }) });
      await row.waitFor();
      const cells = await row.locator("td").allInnerTexts();
      expect(cells[2]).toMatch(/^ffmpeg .*\{\{video\}\}/);
      expect(cells[3]).toBe(`${job.runtimeSeconds} s`);
      expect(cells[4]).toBe(String(job.creditsCharged));
      await tab.screenshot({ path: join(artifacts, "jobs-with-commands.png") });

      await row.getByRole("link", { name: job.id.slice(0, 8) }).click();
      const line = tab.locator("#command-line");
      await line.waitFor();
      const text = await line.innerText();
      // One line a shell reads back as the job's arguments (the planned ones: it is a preset job that ran).
      expect(text.startsWith("ffmpeg ")).toBe(true);
      expect(text).not.toContain("\n");
      await tab.getByRole("button", { name: "Copy", exact: true }).click();
      await tab.getByRole("button", { name: "Copied", exact: true }).waitFor();
      expect(await tab.evaluate("navigator.clipboard.readText()")).toBe(text);
      const phases = await tab.locator("ul.timings li").evaluateAll((lis) => lis.map((li: any) => li.title));
      expect(phases).toEqual(
        ["queued", "fetch", "run", "store", "finish"].map((p) => expect.stringMatching(new RegExp(`^${p}: \\d+ ms$`))),
      );

      const player = tab.locator("video[aria-label='Output hls']");
      await player.waitFor();
      await player.evaluate((v: any) => v.play());
      // Polled inside the page by a function (the dashboard's CSP forbids evaluating strings).
      const played = await player.evaluate(
        (v: any) =>
          new Promise((ok) => {
            const started = Date.now();
            const check = () =>
              v.currentTime > 0.5 || Date.now() - started > 20_000 ? ok(v.currentTime) : setTimeout(check, 100);
            check();
          }),
      );
      expect(played).toBeGreaterThan(0.5);
      expect(await accessibilityProblems(tab)).toEqual([]);
      await tab.screenshot({ path: join(artifacts, "job-hls.png"), fullPage: true });
    } finally {
      await context.close();
    }
  }, 120_000);

  it("shows a job's output checks (a failure reported) and its receipt, which copies whole and verifies", async () => {
    const job = await local.runToEnd({
      inputs: { clip: { type: "url", url: `${local.media.url}/${fx.clip.split("/").pop()}` } },
      outputs: { out: { fileName: "out.mp4", checks: { streams: ["video"], width: 640 } } },
      ffmpegArgs: ["-i", "{{clip}}", "-c", "copy", "{{out}}"],
      onFailedCheck: "report",
    });
    expect(job.status, JSON.stringify(job)).toBe("completed");
    const context = await browser.newContext({ permissions: ["clipboard-read", "clipboard-write"] });
    const tab = await context.newPage();
    try {
      await signedIn(tab);
      await tab.goto(`${local.stack.baseUrl}/dashboard/#/jobs/${job.id}`);
      const table = tab.locator("table.checks");
      await table.waitFor();
      expect(await table.locator("caption").innerText()).toBe("1 of 2 checks failed");
      const rows = await table.locator("tr.failed td").allInnerTexts();
      expect(rows).toEqual(["out", "width", "failed", "width 320; wanted 640"]);
      expect(await tab.locator(".receipt li").innerText()).toBe(
        `out: sha256 ${job.outputs[0].sha256}, ${job.outputs[0].metadata.size} bytes`,
      );
      await tab.getByRole("button", { name: "Copy receipt" }).click();
      await tab.getByRole("button", { name: "Receipt copied" }).waitFor();
      const copied = JSON.parse(String(await tab.evaluate("navigator.clipboard.readText()")));
      const secret = (await local.api.call("GET", "/v1/webhooks/secret")).body.secret;
      expect(await verifyReceipt(copied, secret)).toMatchObject({ job: { id: job.id } });
      expect(await accessibilityProblems(tab)).toEqual([]);
      await tab.screenshot({ path: join(artifacts, "job-checks-receipt.png"), fullPage: true });
    } finally {
      await context.close();
    }
  }, 120_000);

  it("draws the operator's metrics from real jobs: jobs per hour by outcome, wait and run time, credits per day", async () => {
    const before = (await local.api.call("GET", "/v1/admin/metrics")).body as any;
    const clip = `${local.media.url}/${fx.clip.split("/").pop()}`;
    const thumb = await local.runToEnd({
      inputs: { v: { type: "url", url: clip } },
      outputs: { t: { fileName: "t.jpg", contentType: "image/jpeg" } },
      ffmpegArgs: ["-i", "{{v}}", "-frames:v", "1", "{{t}}"],
    });
    expect(thumb.status, JSON.stringify(thumb)).toBe("completed");
    const failed = await local.runToEnd({
      binary: "ffprobe",
      inputs: { v: { type: "url", url: `${local.media.url}/no-such-file.mp4` } },
      ffmpegArgs: ["{{v}}"],
    });
    expect(failed.errorCode).toBe("INPUT_FETCH_FAILED");
    const res = await local.api.call("GET", "/v1/admin/metrics");
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const m = res.body as any;
    expect(m.jobs.completed).toBe((before.jobs.completed ?? 0) + 1);
    expect(m.jobs.failed).toBe((before.jobs.failed ?? 0) + 1);
    expect(m.errors.INPUT_FETCH_FAILED).toBe((before.errors.INPUT_FETCH_FAILED ?? 0) + 1);
    // The stored thumbnail's bytes, and what the job read of its input.
    const stored = (await local.api.call("GET", `/v1/files/${thumb.outputs[0].assetId}`)).body as any;
    expect(m.bytesOut - before.bytesOut).toBe(stored.size);
    expect(m.bytesIn - before.bytesIn).toBe(thumb.inputReads.v.originBytes);

    await signedIn(page);
    await page.getByRole("link", { name: "Metrics" }).click();
    const jobsChart = page.getByRole("img", { name: /^Jobs per hour by outcome/ });
    await jobsChart.waitFor();
    // The bars are the API's series: the current hour's carry its counts.
    const hour = m.series.at(-1);
    const label = `${hour.at.slice(11, 13)}:00`;
    const titles = await jobsChart.locator("rect title").allTextContents();
    for (const [outcome, n] of Object.entries(hour.jobs)) expect(titles).toContain(`${label}: ${n} ${outcome}`);
    const times = page.getByRole("img", { name: /^Queue wait and run time per hour/ });
    expect(await times.locator("circle title").allTextContents()).toContain(`${label}: run p50 ${hour.runP50Ms} ms`);
    const credits = page.getByRole("img", { name: /^Credits per day/ });
    expect(await credits.locator("rect").count()).toBeGreaterThan(0);
    const jobsRow = await page.locator("#metrics-totals tr", { hasText: "Jobs" }).first().innerText();
    expect(jobsRow).toContain(`completed ${m.jobs.completed}`);
    expect(await page.locator("#metrics-accounts tbody tr").count()).toBe(m.accounts.length);
    expect(await accessibilityProblems(page)).toEqual([]);
    await page.screenshot({ path: join(artifacts, "metrics.png"), fullPage: true });
    await page.getByRole("link", { name: "7d" }).click();
    await page.waitForURL(/period=7d/);
    await expect.poll(() => page.locator("strong[aria-current=page]").innerText()).toBe("7d");
    expect(
      await page
        .getByRole("img", { name: /^Jobs per hour by outcome/ })
        .locator("rect")
        .count(),
    ).toBeGreaterThan(0);
    await page.screenshot({ path: join(artifacts, "metrics-7d.png"), fullPage: true });
  }, 120_000);

  it("works on a phone-sized screen, with filters and the preset catalogue", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${local.stack.baseUrl}/dashboard/#/jobs`);
    await page.getByLabel("Status").selectOption("completed");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL(/status=completed/);
    await page.locator("td.status-completed").first().waitFor();
    // The unfiltered list may still be on screen for a moment (other tests ran failing jobs).
    await expect.poll(() => page.locator("td.status-failed").count()).toBe(0);
    expect(
      await page.evaluate(
        () => (globalThis as any).document.documentElement.scrollWidth <= (globalThis as any).innerWidth + 1,
      ),
    ).toBe(true);
    await page.screenshot({ path: join(artifacts, "jobs-phone.png"), fullPage: true });
    await page.getByRole("link", { name: "Presets" }).click();
    await page.getByText("hls-ladder").waitFor();
    expect(await accessibilityProblems(page)).toEqual([]);
  }, 60_000);
});
