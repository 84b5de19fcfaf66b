import { beforeAll, describe, expect, it } from "vitest";
import { api, createAccount, isTerminalJob, mediaUrl, nullOutputJob as job, waitForJob } from "./helpers.ts";

let key: string;
beforeAll(async () => {
  ({ key } = await createAccount());
});

describe("timeoutSeconds", () => {
  it("is capped by the operator's JOB_TIMEOUT_SECONDS (a 400 above it)", async () => {
    const res = await api(key, "POST", "/v1/jobs", job({ timeoutSeconds: 3601 }));
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([
      expect.objectContaining({ path: ["timeoutSeconds"], message: expect.stringMatching(/at most 3600/) }),
    ]);
  });

  it("stops a job at its own, shorter limit", async () => {
    const created = await api(key, "POST", "/v1/jobs", {
      inputs: { a: { type: "url", url: mediaUrl("long.mp4") } },
      ffmpegArgs: ["-re", "-i", "{{a}}", "-f", "null", "-"],
      timeoutSeconds: 1,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const done = await waitForJob(key, created.body.id, isTerminalJob, 30_000);
    expect(done).toMatchObject({ status: "failed", errorCode: "JOB_TIMEOUT", timeoutSeconds: 1 });
    expect(done.errorMessage).toMatch(/1 s limit/);
    expect(done.runtimeSeconds).toBeLessThanOrEqual(3);
  });
});
