import { createScheduledController } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../src/index.ts";
import { app } from "../../src/api/app.ts";
import { sweepStalled } from "../../src/maintenance/sweep-stalled.ts";
import { createServices } from "../../src/services.ts";
import {
  createAccount,
  insertQueuedJob,
  isTerminalJob,
  jobStatus,
  mediaUrl,
  minutesLater,
  waitForJob,
} from "./helpers.ts";

let account: { accountId: string; key: string };
beforeAll(async () => {
  account = await createAccount();
});

describe("the sweeper", () => {
  it("dispatches a queued job whose queue message was lost, and leaves fresh ones alone", async () => {
    const services = createServices(env);
    const jobId = await insertQueuedJob(account.accountId, {
      binary: "ffprobe",
      args: ["-show_format", "{{m}}"],
      inputs: { m: { type: "url", url: mediaUrl("clip.mp4") } },
    });
    expect((await sweepStalled(services)).jobs).toBe(0);
    expect(await jobStatus(jobId)).toBe("queued");
    expect((await sweepStalled({ ...services, now: minutesLater(3) })).jobs).toBeGreaterThanOrEqual(1);
    expect((await waitForJob(account.key, jobId, isTerminalJob)).status).toBe("completed");
  });

  it("covers a failed dispatch at creation: the client still gets its 202, and the job runs", async () => {
    const brokenEnv = {
      ...env,
      JOBS_QUEUE: {
        send: async () => {
          throw new Error("queue unavailable");
        },
      } as unknown as typeof env.JOBS_QUEUE,
    };
    const res = await app.fetch(
      new Request("https://ffjobs.test/v1/jobs", {
        method: "POST",
        headers: { Authorization: `Bearer ${account.key}`, "Content-Type": "application/json" },
        body: JSON.stringify({
          binary: "ffprobe",
          input: [{ type: "url", url: mediaUrl("clip.mp4") }],
          ffmpegArgs: ["-show_format", "{{input0}}"],
        }),
      }),
      brokenEnv,
    );
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    expect(await jobStatus(id)).toBe("queued");
    await sweepStalled({ ...createServices(env), now: minutesLater(3) });
    expect((await waitForJob(account.key, id, isTerminalJob)).status).toBe("completed");
  });

  it("runs from the Worker's cron trigger", async () => {
    const jobId = await insertQueuedJob(account.accountId, {
      binary: "ffprobe",
      args: ["-show_format", "{{m}}"],
      inputs: { m: { type: "url", url: mediaUrl("clip.mp4") } },
    });
    await env.DB.prepare("UPDATE jobs SET updated_at = ?2 WHERE id = ?1")
      .bind(jobId, new Date(Date.now() - 10 * 60_000).toISOString())
      .run();
    await worker.scheduled(createScheduledController({ cron: "* * * * *", scheduledTime: new Date() }), env);
    expect((await waitForJob(account.key, jobId, isTerminalJob)).status).toBe("completed");
  });
});
