import { runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { api, coordinator, createAccount, insertQueuedJob, jobStatus, probeSpec } from "./helpers.ts";

let account: { accountId: string; key: string };
beforeAll(async () => {
  account = await createAccount();
});

describe("a cancel through the API", () => {
  it("cancels a queued job at once, and a later queue message for it does nothing", async () => {
    const id = await insertQueuedJob(account.accountId, probeSpec("clip.mp4"));
    const notYet = await api(account.key, "GET", `/v1/jobs/${id}/result`);
    expect(notYet).toMatchObject({ status: 409, body: { code: "JOB_NOT_FINISHED", status: "queued" } });
    const res = await api(account.key, "POST", `/v1/jobs/${id}/cancel`);
    expect(res.body).toMatchObject({ status: "canceled", runtimeSeconds: 0, creditsCharged: 0, startedAt: null });
    expect(await runInDurableObject(coordinator(id), (c) => c.start(id))).toBe("finished");
    expect(await jobStatus(id)).toBe("canceled");
  });
});
