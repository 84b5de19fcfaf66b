import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { api, createAccount, insertQueuedJob, waitForJob } from "./helpers.ts";

/**
 * Job chains at creation and while waiting (the run itself, reading the stored output, is in
 * test/e2e/job-chains.test.ts). Parents are queued jobs written straight to D1, so they stay queued.
 */
let owner: { accountId: string; key: string };
let stranger: { accountId: string; key: string };
beforeAll(async () => {
  owner = await createAccount();
  stranger = await createAccount();
});

const child = (jobId: string, output = "small") => ({
  inputs: { video: { type: "job", jobId, output } },
  binary: "ffprobe",
  ffmpegArgs: ["{{video}}"],
});
const parentSpec = {
  outputs: {
    small: { fileName: "small.mp4", contentType: "video/mp4" },
    hls: { fileName: "index.m3u8", contentType: "application/vnd.apple.mpegurl", kind: "directory" },
  },
};

describe("an input that is another job's output", () => {
  it("is refused at creation when the job is another account's, lacks the output, or has a directory there", async () => {
    const parent = await insertQueuedJob(owner.accountId, parentSpec);
    const theirs = await api(stranger.key, "POST", "/v1/jobs", child(parent));
    expect(theirs.status).toBe(400);
    // Another account's job reads as one that does not exist: nothing about it leaks.
    expect(theirs.body.details).toEqual([
      { path: ["inputs", "video", "jobId"], message: `job ${parent} does not exist`, code: "custom" },
    ]);
    const none = await api(owner.key, "POST", "/v1/jobs", child(crypto.randomUUID()));
    expect(none.body.details[0].message).toMatch(/^job .* does not exist$/);
    const undeclared = await api(owner.key, "POST", "/v1/jobs", child(parent, "big"));
    expect(undeclared.body.details).toEqual([
      { path: ["inputs", "video", "output"], message: `job ${parent} has no output "big"`, code: "custom" },
    ]);
    const directory = await api(owner.key, "POST", "/v1/jobs", child(parent, "hls"));
    expect(directory.body.details[0].message).toMatch(/is a directory: only a file output can be an input/);
  });

  it("is refused when the job already ended without completing", async () => {
    const parent = await insertQueuedJob(owner.accountId, parentSpec);
    expect((await api(owner.key, "POST", `/v1/jobs/${parent}/cancel`)).status).toBe(200);
    const res = await api(owner.key, "POST", "/v1/jobs", child(parent));
    expect(res.body.details[0].message).toBe(`job ${parent} canceled (CANCELED): it will not make "small"`);
  });

  it("keeps the job queued with its reason while the job it reads runs, and fails it when that one is canceled", async () => {
    const parent = await insertQueuedJob(owner.accountId, parentSpec);
    const created = await api(owner.key, "POST", "/v1/jobs", child(parent));
    expect(created.status).toBe(202);
    const waiting = await waitForJob(owner.key, created.body.id, (j) => j.queuedReason !== null);
    expect(waiting).toMatchObject({ status: "queued", queuedReason: `waiting for job ${parent} (queued) to complete` });
    await api(owner.key, "POST", `/v1/jobs/${parent}/cancel`);
    const ended = await waitForJob(owner.key, created.body.id, (j) => j.status !== "queued");
    expect(ended).toMatchObject({
      status: "failed",
      errorCode: "INPUT_JOB_FAILED",
      creditsCharged: 0,
      queuedReason: null,
    });
    expect(ended.errorMessage).toBe(
      `Input "video": job ${parent} canceled (CANCELED: The job was canceled), so it made no "small"`,
    );
  });

  it("fails a waiting job whose parent is deleted", async () => {
    const parent = await insertQueuedJob(owner.accountId, parentSpec);
    const created = await api(owner.key, "POST", "/v1/jobs", child(parent));
    await waitForJob(owner.key, created.body.id, (j) => j.queuedReason !== null);
    await env.DB.prepare("DELETE FROM jobs WHERE id = ?1").bind(parent).run();
    const ended = await waitForJob(owner.key, created.body.id, (j) => j.status !== "queued");
    expect(ended).toMatchObject({
      status: "failed",
      errorCode: "INPUT_JOB_FAILED",
      errorMessage: `Input "video": job ${parent} was deleted before it could be read`,
    });
  });

  it("dependsOn: waits for the jobs named, fails DEPENDENCY_FAILED when one is canceled, refuses another account's", async () => {
    const first = await insertQueuedJob(owner.accountId);
    const body = {
      binary: "ffprobe",
      inputs: { v: { type: "url", url: "http://127.0.0.1:9/a.mp4" } },
      ffmpegArgs: ["{{v}}"],
      dependsOn: [first],
    };
    expect((await api(stranger.key, "POST", "/v1/jobs", body)).body.details).toEqual([
      { path: ["dependsOn", "0"], message: `job ${first} does not exist`, code: "custom" },
    ]);
    expect((await api(owner.key, "POST", "/v1/jobs", { ...body, dependsOn: [first, first] })).status).toBe(400);
    const created = await api(owner.key, "POST", "/v1/jobs", body);
    expect(created.status).toBe(202);
    const waiting = await waitForJob(owner.key, created.body.id, (j) => j.queuedReason !== null);
    expect(waiting).toMatchObject({
      status: "queued",
      dependsOn: [first],
      queuedReason: `waiting for job ${first} (queued) to complete`,
    });
    await api(owner.key, "POST", `/v1/jobs/${first}/cancel`);
    const ended = await waitForJob(owner.key, created.body.id, (j) => j.status !== "queued");
    expect(ended).toMatchObject({
      status: "failed",
      errorCode: "DEPENDENCY_FAILED",
      creditsCharged: 0,
      errorMessage: `dependsOn: job ${first} canceled (CANCELED: The job was canceled)`,
    });
  });

  it("dry-runs a job on an output that is not stored yet: where it will be, and why it is not probed", async () => {
    const parent = await insertQueuedJob(owner.accountId, parentSpec);
    const plain = await api(owner.key, "POST", "/v1/jobs/validate", child(parent));
    expect(plain.status).toBe(200);
    expect(plain.body).toMatchObject({
      valid: true,
      commands: [{ binary: "ffprobe", argv: expect.arrayContaining(["/job/in/video.mp4"]) }],
    });
    const probed = await api(owner.key, "POST", "/v1/jobs/validate?probe=true", child(parent));
    expect(probed.body.inputs.video).toEqual({
      ok: false,
      error: "another job's output, not stored yet: it can be probed once that job has completed",
    });
  });
});
