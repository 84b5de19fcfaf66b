import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { createClient } from "../../client/src/index.ts";
import { useLocalStack } from "../support/local-stack.ts";

/**
 * `ffjobs jobs command <id>` prints a script that runs a job again with the local ffmpeg; run here,
 * it must make what the job made: the same decoded frames (a lossless output, so frames compare
 * exactly), from a URL input, an uploaded one, a time placeholder and two steps.
 */
const { fx, local } = useLocalStack();
const run = promisify(execFile);
const CLI = resolve(import.meta.dirname, "../../cli/src/main.ts");
/** Every decoded video frame's MD5: equal lists, equal pictures. */
const frames = async (fileOrUrl: string) =>
  (
    await run("ffmpeg", ["-v", "error", "-i", fileOrUrl, "-map", "0:v", "-f", "framemd5", "-"], {
      maxBuffer: 16 * 1024 * 1024,
    })
  ).stdout
    .split("\n")
    .filter((l) => l && !l.startsWith("#"));

describe("a job run again from its command script", () => {
  it("makes the same output with a local ffmpeg as the job made", async () => {
    const client = createClient({ baseUrl: local.stack.baseUrl, apiKey: local.stack.apiKey });
    const logo = await client.uploadFile(fx.logo);
    const job = await local.runToEnd({
      inputs: {
        video: { type: "url", url: `${local.media.url}/${fx.clip.split("/").pop()}` },
        logo: { type: "asset", assetId: logo.id },
      },
      outputs: { result: { fileName: "result.mkv" } },
      scratch: { middle: "middle.mkv" },
      steps: [
        { ffmpegArgs: ["-ss", "{{video@25%}}", "-i", "{{video}}", "-t", "1", "-an", "-c:v", "ffv1", "{{middle}}"] },
        {
          ffmpegArgs: [
            "-i",
            "{{middle}}",
            "-i",
            "{{logo}}",
            "-filter_complex",
            "[0:v][1:v]overlay=10:10",
            "-c:v",
            "ffv1",
            "{{result}}",
          ],
        },
      ],
    });
    expect(job.status, JSON.stringify(job)).toBe("completed");

    const printed = await run(process.execPath, [CLI, "jobs", "command", job.id], {
      env: {
        ...process.env,
        FFJOBS_URL: local.stack.baseUrl,
        FFJOBS_API_KEY: local.stack.apiKey,
        FFJOBS_CONFIG: "/nonexistent",
      },
    });
    const script = printed.stdout;
    expect(script).toMatch(/^#!\/bin\/sh\n/);
    expect(script).toContain(`ffjobs job ${job.id}`);
    expect(script).not.toContain("-progress");
    const dir = mkdtempSync(join(tmpdir(), "ffjobs-reproduce-"));
    try {
      writeFileSync(join(dir, "rerun.sh"), script);
      const rerun = await run("sh", ["rerun.sh"], { cwd: dir });
      expect(rerun.stdout).toContain("output result: ./out/result.mkv");
      const local = await frames(join(dir, "out/result.mkv"));
      expect(local.length).toBe(25);
      expect(local).toEqual(await frames(job.outputs[0].downloadUrl));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("answers 404 for another account's job, and says when an upload it used is gone", async () => {
    const other = await local.api.call("GET", "/v1/jobs/00000000-0000-4000-8000-000000000000/command");
    expect(other.status).toBe(404);
    const client = createClient({ baseUrl: local.stack.baseUrl, apiKey: local.stack.apiKey });
    const logo = await client.uploadFile(fx.logo);
    const job = await local.runToEnd({
      binary: "ffprobe",
      inputs: { logo: { type: "asset", assetId: logo.id } },
      ffmpegArgs: ["{{logo}}"],
    });
    await client.deleteFile(logo.id);
    const script = await client.getJobCommand(job.id);
    expect(script).toContain('input "logo" was an upload that no longer exists');
    const dir = mkdtempSync(join(tmpdir(), "ffjobs-reproduce-"));
    try {
      writeFileSync(join(dir, "rerun.sh"), script);
      const failed = await run("sh", ["rerun.sh"], { cwd: dir }).catch((err) => err);
      expect(failed.code).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
