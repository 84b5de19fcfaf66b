import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, isFinished } from "../support/api-client.ts";
import { startDevStack, type DevStack } from "../support/dev-stack.ts";
import { mediaFixtures } from "../support/media-fixtures.ts";
import { startStaticServer } from "../support/static-server.ts";

/**
 * The runner tells the coordinator when a job gets its slot and when it ends, so a job's end is
 * known at once. Here the coordinator polls only every 30 s: a job that ends within seconds can only
 * have been noticed through the runner's notification.
 */
const POLL_MS = 30_000;
const fx = mediaFixtures();
let stack: DevStack;
let media: Awaited<ReturnType<typeof startStaticServer>>;

beforeAll(async () => {
  media = await startStaticServer(fx.dir);
  stack = await startDevStack({ ALLOWED_PRIVATE_HOSTS: "127.0.0.1", RUNNER_POLL_INTERVAL_MS: String(POLL_MS) });
});
afterAll(async () => {
  await stack?.stop();
  await media?.close();
});

describe("runner notifications (push instead of poll)", () => {
  it("end a small job long before the next poll would have", async () => {
    const api = apiClient(stack.baseUrl, stack.apiKey);
    for (let i = 0; i < 3; i++) {
      const created = await api.call("POST", "/v1/jobs", {
        binary: "ffprobe",
        input: [{ type: "url", url: `${media.url}/clip.mp4` }],
        ffmpegArgs: ["-v", "error", "-show_format", "{{input0}}"],
      });
      const job = await api.waitUntil(created.body.id, isFinished, POLL_MS / 2, 20);
      expect(job.status).toBe("completed");
      expect(Date.parse(job.finishedAt) - Date.parse(job.createdAt)).toBeLessThan(POLL_MS / 3);
    }
  });

  it("answer 404 on a path that names no job", async () => {
    const res = await fetch(`${stack.baseUrl}/internal/runner-notify/jobs/not-a-job`, { method: "POST" });
    expect(res.status).toBe(404);
  });
});
