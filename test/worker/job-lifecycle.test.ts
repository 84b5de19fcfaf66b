import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { jobAcceptedSchema, jobResultSchema, jobSchema } from "../../src/api/schemas/jobs.ts";
import { api, createAccount, isTerminalJob, mediaUrl, waitForJob } from "./helpers.ts";

let key: string;
beforeAll(async () => {
  ({ key } = await createAccount());
});

const probeJob = (file: string) => ({
  binary: "ffprobe",
  inputs: { media: { type: "url", url: mediaUrl(file) } },
  ffmpegArgs: ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", "{{media}}"],
});

describe("job lifecycle (queue → coordinator → real runner)", () => {
  it("accepts with 202 and a Location, then runs an ffprobe job to a parsed result", async () => {
    const created = await api(key, "POST", "/v1/jobs", probeJob("clip.mp4"));
    expect(created.status).toBe(202);
    expect(jobAcceptedSchema.strict().parse(created.body)).toEqual({
      id: expect.any(String),
      binary: "ffprobe",
      status: "queued",
      mode: "raw",
    });
    expect(created.headers.get("Location")).toBe(`/v1/jobs/${created.body.id}`);

    const queued = await api(key, "GET", `/v1/jobs/${created.body.id}`);
    expect(jobSchema.parse(queued.body)).toMatchObject({
      runtimeSeconds: 0,
      creditsCharged: 0,
      outputs: [],
      finishedAt: null,
      errorCode: null,
    });

    const job = await waitForJob(key, created.body.id, isTerminalJob);
    expect(jobSchema.parse(job)).toMatchObject({ status: "completed", errorCode: null, errorMessage: null });
    expect(job.runtimeSeconds).toBeGreaterThanOrEqual(1);
    expect(job.creditsCharged).toBe(job.runtimeSeconds);
    expect(Date.parse(job.startedAt)).toBeGreaterThanOrEqual(Date.parse(job.createdAt));
    expect(Date.parse(job.finishedAt)).toBeGreaterThanOrEqual(Date.parse(job.startedAt));

    const result = await api(key, "GET", `/v1/jobs/${job.id}/result`);
    expect(result.status).toBe(200);
    expect(jobResultSchema.strict().parse(result.body)).toMatchObject({
      status: "completed",
      binary: "ffprobe",
      exitCode: 0,
    });
    expect(result.body.probe.format.format_name).toContain("mp4");
    expect(result.body.probe.streams).toHaveLength(2);
  });

  it("fails a command that exits non-zero with PROCESS_FAILED and ffmpeg's reason", async () => {
    const created = await api(key, "POST", "/v1/jobs", {
      inputs: { a: { type: "url", url: mediaUrl("clip.mp4") } },
      ffmpegArgs: ["-i", "{{a}}", "-c:v", "definitely_not_a_codec", "-f", "null", "-"],
    });
    const job = await waitForJob(key, created.body.id, isTerminalJob);
    expect(job).toMatchObject({ status: "failed", errorCode: "PROCESS_FAILED" });
    expect(job.errorMessage).toMatch(/^ffmpeg exited with code \d+: .*definitely_not_a_codec/);
    const result = (await api(key, "GET", `/v1/jobs/${job.id}/result`)).body;
    expect(result.exitCode).not.toBe(0);
    expect(result.stderrTail).toContain("definitely_not_a_codec");
    expect(result.probe).toBeNull();
  });

  it("fails an unreachable URL input with INPUT_FETCH_FAILED and charges nothing", async () => {
    const created = await api(key, "POST", "/v1/jobs", probeJob("missing.mp4"));
    const job = await waitForJob(key, created.body.id, isTerminalJob);
    expect(job).toMatchObject({
      status: "failed",
      errorCode: "INPUT_FETCH_FAILED",
      runtimeSeconds: 0,
      creditsCharged: 0,
    });
    expect(job.errorMessage).toMatch(/HTTP 404/);
  });

  it("shows progress while running and cancels a running job, charging the seconds it ran", async () => {
    const created = await api(key, "POST", "/v1/jobs", {
      inputs: { a: { type: "url", url: mediaUrl("long.mp4") } },
      ffmpegArgs: ["-re", "-i", "{{a}}", "-f", "null", "-"],
    });
    // The percentage comes once the inputs' duration is known (probed beside the running job).
    const running = await waitForJob(
      key,
      created.body.id,
      (j) => j.status === "running" && j.progress?.percent != null,
    );
    expect(running.progress).toEqual({
      percent: expect.any(Number),
      outTimeSeconds: expect.any(Number),
      speed: expect.anything(),
      frames: expect.any(Number),
    });
    expect(running.startedAt).not.toBeNull();
    const early = await api(key, "GET", `/v1/jobs/${created.body.id}/result`);
    expect(early).toMatchObject({ status: 409, body: { code: "JOB_NOT_FINISHED", status: "running" } });

    await new Promise((r) => setTimeout(r, 1100));
    const canceled = await api(key, "POST", `/v1/jobs/${created.body.id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ status: "canceled", errorCode: "CANCELED", progress: null });
    expect(canceled.body.runtimeSeconds).toBeGreaterThanOrEqual(1);
    expect(canceled.body.creditsCharged).toBe(canceled.body.runtimeSeconds);

    const again = await api(key, "POST", `/v1/jobs/${created.body.id}/cancel`);
    expect(again).toMatchObject({ status: 409, body: { code: "JOB_ALREADY_FINISHED", status: "canceled" } });
  });

  it("rejects a job when the account's credits are exhausted, without charging", async () => {
    const broke = await createAccount(0);
    const created = await api(broke.key, "POST", "/v1/jobs", probeJob("clip.mp4"));
    expect(created.status).toBe(202);
    const job = await waitForJob(broke.key, created.body.id, isTerminalJob);
    expect(job).toMatchObject({
      status: "rejected",
      errorCode: "INSUFFICIENT_CREDITS",
      runtimeSeconds: 0,
      creditsCharged: 0,
      startedAt: null,
    });
  });

  it("deducts the charge from a limited balance exactly once", async () => {
    const limited = await createAccount(100);
    const created = await api(limited.key, "POST", "/v1/jobs", probeJob("clip.mp4"));
    const job = await waitForJob(limited.key, created.body.id, isTerminalJob);
    expect(job.status).toBe("completed");
    const balance = await env.DB.prepare("SELECT credit_balance AS b FROM accounts WHERE id = ?1")
      .bind(limited.accountId)
      .first<{ b: number }>();
    expect(balance!.b).toBe(100 - job.creditsCharged);
  });
});
