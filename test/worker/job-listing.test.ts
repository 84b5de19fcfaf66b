import { beforeAll, describe, expect, it } from "vitest";
import { jobListSchema } from "../../src/api/schemas.ts";
import { api, createAccount, insertQueuedJob } from "./helpers.ts";

let owner: { accountId: string; key: string };
let stranger: { accountId: string; key: string };
beforeAll(async () => {
  owner = await createAccount();
  stranger = await createAccount();
});

async function insertJobs(n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    ids.push(await insertQueuedJob(owner.accountId));
    await new Promise((r) => setTimeout(r, 2));
  }
  return ids;
}

async function page(key: string, query: string) {
  const res = await api(key, "GET", `/v1/jobs${query}`);
  expect(res.status).toBe(200);
  return jobListSchema.parse(res.body);
}

describe("GET /v1/jobs", () => {
  it("lists newest first with keyset pages that stay correct while jobs are created", async () => {
    const first = await insertJobs(5);
    const p1 = await page(owner.key, "?limit=2");
    expect(p1.data.map((j) => j.id)).toEqual([first[4], first[3]]);
    expect(p1.nextCursor).toEqual(expect.any(String));
    const newer = await insertJobs(3);
    const p2 = await page(owner.key, `?limit=2&cursor=${encodeURIComponent(p1.nextCursor!)}`);
    expect(p2.data.map((j) => j.id)).toEqual([first[2], first[1]]);
    const p3 = await page(owner.key, `?limit=2&cursor=${encodeURIComponent(p2.nextCursor!)}`);
    expect(p3.data.map((j) => j.id)).toEqual([first[0]]);
    expect(p3.nextCursor).toBeNull();
    expect((await page(owner.key, "?limit=3")).data.map((j) => j.id)).toEqual([...newer].reverse());
  });

  it("defaults to 20 and filters by status", async () => {
    await insertJobs(21);
    expect((await page(owner.key, "")).data).toHaveLength(20);
    const canceled = (await page(owner.key, "?limit=1")).data[0];
    await api(owner.key, "POST", `/v1/jobs/${canceled.id}/cancel`);
    const only = await page(owner.key, "?status=canceled");
    expect(only.data.map((j) => j.id)).toEqual([canceled.id]);
    expect(only.data[0].status).toBe("canceled");
  });

  it("never shows another account's jobs, and answers their ids exactly like missing ones", async () => {
    const [id] = await insertJobs(1);
    expect((await page(stranger.key, "")).data).toEqual([]);
    const missing = crypto.randomUUID();
    for (const path of [`/v1/jobs/${id}`, `/v1/jobs/${id}/result`]) {
      const theirs = await api(stranger.key, "GET", path);
      const none = await api(stranger.key, "GET", path.replace(id, missing));
      expect(theirs).toMatchObject({ status: 404, body: none.body });
    }
    expect(await api(stranger.key, "POST", `/v1/jobs/${id}/cancel`)).toMatchObject({ status: 404, body: { code: "NOT_FOUND" } });
    expect((await api(owner.key, "GET", `/v1/jobs/${id}`)).body.status).toBe("queued");
  });
});
