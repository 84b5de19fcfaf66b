import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../client/src/index.ts";
import { useLocalStack } from "../support/local-stack.ts";
import { accessibilityProblems } from "../support/axe-check.ts";
import { runFfjobs } from "../support/ffjobs-cli.ts";
import { ffprobeJson } from "../support/media-fixtures.ts";

/*
 * Job templates in every interface a person uses, against `npm run dev`'s stack: the typed client, the
 * CLI on a local file, and the dashboard in Chromium (create, edit, run from a form; the job's page
 * with its inputs, result and probe as labelled fields and a table of streams).
 */
const { fx, local } = useLocalStack();
let browser: Browser;
let page: Page;
let work: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "ffjobs-templates-"));
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox"],
  });
  page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  await page.goto(`${local.stack.baseUrl}/dashboard/`);
  await page.getByLabel("API key").fill(local.stack.apiKey);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Jobs", exact: true }).waitFor();
});
afterAll(async () => {
  await browser?.close();
  rmSync(work, { recursive: true, force: true });
});

const clipUrl = () => `${local.media.url}/${fx.clip.split("/").pop()}`;
const scaleJob = {
  inputs: { video: { type: "url", url: "{{src}}" } },
  outputs: { small: { fileName: "small-{{height}}.mp4" } },
  ffmpegArgs: ["-i", "{{video}}", "-vf", "scale=-2:{{height}}", "-c:v", "libx264", "-preset", "ultrafast", "{{small}}"],
};

const ffjobs = (args: string[], cwd: string) => runFfjobs(local.stack, args, cwd);

describe("job templates in every interface", () => {
  it("the typed client keeps, versions and runs one", async () => {
    const client = createClient({ baseUrl: local.stack.baseUrl, apiKey: local.stack.apiKey });
    const created = await client.createTemplate({
      name: "client-scale",
      variables: { src: { type: "url" }, height: { type: "integer", default: 120, minimum: 64, maximum: 720 } },
      job: scaleJob,
    });
    expect(created.version).toBe(1);
    const updated = await client.updateTemplate("client-scale", {
      description: "now 96 by default",
      variables: { src: { type: "url" }, height: { type: "integer", default: 96, minimum: 64, maximum: 720 } },
      job: scaleJob,
    });
    expect(updated.version).toBe(2);
    expect((await client.listTemplates()).data.map((t) => [t.name, t.version])).toContainEqual(["client-scale", 2]);
    const accepted = await client.createJob({ template: "client-scale", vars: { src: clipUrl() } });
    const job = await client.waitForJob(accepted.id);
    expect(job).toMatchObject({ status: "completed", template: { name: "client-scale", version: 2 } });
    expect(job.outputDeclarations.small.fileName).toBe("small-96.mp4");
    const refused = await client
      .createJob({ template: "client-scale", vars: { src: clipUrl(), height: 10 } })
      .catch((e) => e);
    expect(refused).toMatchObject({ status: 400, details: [expect.objectContaining({ path: ["vars", "height"] })] });
  });

  it("the CLI runs one on a local file and downloads its output", async () => {
    const client = createClient({ baseUrl: local.stack.baseUrl, apiKey: local.stack.apiKey });
    await client.createTemplate({
      name: "cli-scale",
      variables: { src: { type: "url" }, height: { type: "integer", default: 120 } },
      job: scaleJob,
    });
    // "0100" is the number 100 to the service, which names the output small-100.mp4: so does the CLI.
    const { code, stderr } = await ffjobs(
      ["run", "--template", "cli-scale", "height=0100", "-i", `video=${fx.clip}`],
      work,
    );
    expect(code, stderr).toBe(0);
    const out = join(work, "small-100.mp4");
    expect(existsSync(out)).toBe(true);
    expect((ffprobeJson(out) as any).streams[0].height).toBe(100);

    const named = await ffjobs(["run", "--template", "cli-scale", `src=${clipUrl()}`, "-o", "small=named.mp4"], work);
    expect(named.code, named.stderr).toBe(0);
    expect((ffprobeJson(join(work, "named.mp4")) as any).streams[0].height).toBe(120);

    const bad = await ffjobs(
      ["run", "--template", "cli-scale", `src=${clipUrl()}`, "height=tall", "-o", "small=bad.mp4"],
      work,
    );
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("at vars.height: must be an integer");
  });

  it("the CLI refuses two outputs at one path, keeps a frame pattern's files, prints names as text", async () => {
    const client = createClient({ baseUrl: local.stack.baseUrl, apiKey: local.stack.apiKey });
    await client.createTemplate({
      name: "cli-two",
      description: "two outputs \u001b]52;c;cHduZWQ=\u0007\u001b[2J",
      variables: { n: { type: "string", default: "a" } },
      job: {
        inputs: { video: { type: "url", url: clipUrl() } },
        outputs: { a: { fileName: "{{n}}.mp4" }, b: { fileName: "b.mp4" } },
        ffmpegArgs: ["-i", "{{video}}", "-t", "1", "{{a}}", "-t", "1", "{{b}}"],
      },
    });
    const clash = await ffjobs(["run", "--template", "cli-two", "n=b"], work);
    expect(clash.code).toBe(1);
    expect(clash.stderr).toMatch(/outputs "a" and "b" would both be written/);
    // A value that would name a file outside the folder (or a dot file, or __proto__'s) is refused before any job.
    for (const n of ["../../escape", "/tmp/abs", ".hidden", "__proto__/x"]) {
      const hostile = await ffjobs(["run", "--template", "cli-two", `n=${n}`], work);
      expect(hostile.code, n).toBe(1);
      expect(hostile.stderr, n).toMatch(/refusing template cli-two's output name/);
    }
    expect(existsSync(join(work, "..", "..", "escape.mp4"))).toBe(false);

    await client.createTemplate({
      name: "cli-frames",
      variables: { count: { type: "integer", default: 2 } },
      job: {
        inputs: { video: { type: "url", url: clipUrl() } },
        outputs: { f: { fileName: "frame_%03d.png", kind: "directory" } },
        ffmpegArgs: ["-i", "{{video}}", "-frames:v", "{{count}}", "{{f}}"],
      },
    });
    const frames = await ffjobs(["run", "--template", "cli-frames", "-o", "f=frames"], work);
    expect(frames.code, frames.stderr).toBe(0);
    expect(["frame_001.png", "frame_002.png"].map((f) => existsSync(join(work, "frames", f)))).toEqual([true, true]);

    const listed = (await ffjobs(["templates"], work)).stdout;
    expect(listed).toContain("cli-two");
    expect(listed).not.toContain("\u001b");
  });

  it("the dashboard creates, edits and runs one from a form; the job's page reads as labelled fields", async () => {
    await page.getByRole("link", { name: "Templates" }).click();
    await page.getByRole("link", { name: "New template" }).click();
    await page.getByLabel("Name", { exact: true }).fill("page-scale");
    await page.getByLabel("Description", { exact: true }).fill("Scaled in the browser");
    await page
      .getByLabel(/^Variables/)
      .fill(JSON.stringify({ src: { type: "url" }, height: { type: "integer", default: 80 } }));
    await page.getByLabel(/^Job/).fill(JSON.stringify(scaleJob));
    await page.getByRole("button", { name: "Create template" }).click();
    await page.getByText("Saved page-scale version 1").waitFor();

    // A new version that the policy refuses: the page says where.
    await page.goto(`${local.stack.baseUrl}/dashboard/#/templates/page-scale/edit`);
    await page.getByRole("heading", { name: "Edit template page-scale (v1)" }).waitFor();
    await page.getByLabel(/^Job/).fill(
      JSON.stringify({
        ...scaleJob,
        ffmpegArgs: ["-f", "lavfi", "-i", "{{video}}", "-vf", "scale=-2:{{height}}", "{{small}}"],
      }),
    );
    await page.getByRole("button", { name: "Save a new version" }).click();
    await page.getByRole("alert").locator("li code", { hasText: "job.ffmpegArgs.1" }).waitFor();
    await page
      .getByLabel(/^Variables/)
      .fill(JSON.stringify({ src: { type: "url" }, height: { type: "integer", default: 64 } }));
    await page.getByLabel(/^Job/).fill(JSON.stringify(scaleJob));
    await page.getByRole("button", { name: "Save a new version" }).click();
    await page.getByText("Saved page-scale version 2").waitFor();
    expect(await accessibilityProblems(page)).toEqual([]);

    await page.getByRole("link", { name: "Run page-scale" }).click();
    await page.getByRole("heading", { name: "Run template page-scale (v2)" }).waitFor();
    await page.getByLabel(/^src/).fill(clipUrl());
    await expect.poll(() => page.getByLabel(/^height/).inputValue()).toBe("64");
    expect(await accessibilityProblems(page)).toEqual([]);
    await page.getByRole("button", { name: "Run page-scale" }).click();
    await page.waitForURL(/#\/jobs\/[0-9a-f-]{36}$/);
    await page.locator("#job-status", { hasText: "completed" }).waitFor({ timeout: 60_000 });
    await page.locator("#job-template", { hasText: "page-scale version 2" }).waitFor();
    const inputs = page.getByRole("definition").filter({ hasText: clipUrl() });
    expect(await inputs.count()).toBe(1);
    expect(await page.locator("dl[aria-label=Result]").innerText()).toMatch(/Exit code\s+0/);

    // A probe job's page: the container's facts and a row per stream.
    const client = createClient({ baseUrl: local.stack.baseUrl, apiKey: local.stack.apiKey });
    const probe = await client.createJob({
      binary: "ffprobe",
      inputs: { clip: { type: "url", url: clipUrl() } },
      ffmpegArgs: ["-print_format", "json", "-show_format", "-show_streams", "{{clip}}"],
    });
    await client.waitForJob(probe.id);
    await page.goto(`${local.stack.baseUrl}/dashboard/#/jobs/${probe.id}`);
    const streams = page.getByRole("table", { name: "Streams" });
    await streams.waitFor();
    const rows = await streams.locator("tbody tr").allInnerTexts();
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/video\s+h264.*320×240/);
    expect(rows[1]).toMatch(/audio\s+aac.*44100 Hz|audio\s+aac.*48000 Hz/);
    expect(await page.locator("dl[aria-label=Probe]").innerText()).toMatch(/Duration\s+3\.\d\d s/);
    expect(await accessibilityProblems(page)).toEqual([]);
  }, 120_000);
});
