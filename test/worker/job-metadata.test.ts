import { beforeAll, describe, expect, it } from "vitest";
import { api, createAccount, nullOutputJob as job } from "./helpers.ts";

let key: string;
beforeAll(async () => {
  ({ key } = await createAccount());
});

describe("job metadata", () => {
  it("is stored with the job, returned with it, and filters the job list (every filter must match)", async () => {
    const tag = crypto.randomUUID();
    const a = await api(key, "POST", "/v1/jobs", job({ metadata: { batch: tag, customer: "acme" } }));
    const b = await api(key, "POST", "/v1/jobs", job({ metadata: { batch: tag, customer: "globex" } }));
    await api(key, "POST", "/v1/jobs", job({ metadata: { batch: "other" } }));
    expect((await api(key, "GET", `/v1/jobs/${a.body.id}`)).body.metadata).toEqual({ batch: tag, customer: "acme" });
    const both = await api(key, "GET", `/v1/jobs?metadata[batch]=${tag}`);
    expect(both.body.data.map((j: any) => j.id).sort()).toEqual([a.body.id, b.body.id].sort());
    const one = await api(key, "GET", `/v1/jobs?metadata[batch]=${tag}&metadata[customer]=globex`);
    expect(one.body.data.map((j: any) => j.id)).toEqual([b.body.id]);
    const paged = await api(key, "GET", `/v1/jobs?metadata[batch]=${tag}&limit=1`);
    const next = await api(key, "GET", `/v1/jobs?metadata[batch]=${tag}&limit=1&cursor=${paged.body.nextCursor}`);
    expect([...paged.body.data, ...next.body.data].map((j: any) => j.id).sort()).toEqual([a.body.id, b.body.id].sort());
    expect((await api(key, "GET", `/v1/jobs/${a.body.id}`)).body.timeoutSeconds).toBe(3600);
  });

  it("is bounded: keys, values, entries; a bad filter key or unknown parameter is a 400", async () => {
    expect((await api(key, "POST", "/v1/jobs", job({ metadata: { "bad key": "x" } }))).body.details[0].path).toEqual([
      "metadata",
      "bad key",
    ]);
    expect((await api(key, "POST", "/v1/jobs", job({ metadata: { k: "x".repeat(513) } }))).status).toBe(400);
    expect(
      (
        await api(
          key,
          "POST",
          "/v1/jobs",
          job({ metadata: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, "v"])) }),
        )
      ).status,
    ).toBe(400);
    expect((await api(key, "GET", "/v1/jobs?metadata[a b]=x")).status).toBe(400);
    expect((await api(key, "GET", "/v1/jobs?metdata[a]=x")).status).toBe(400);
  });

  it("filters the list by at most 32 entries, as many as a job can have: more is a 400 that says so (48 passed D1's 100 bound parameters)", async () => {
    const filters = (n: number) => Array.from({ length: n }, (_, i) => `metadata[k${i}]=v`).join("&");
    const tag = crypto.randomUUID();
    const full = Object.fromEntries(Array.from({ length: 32 }, (_, i) => [`k${i}`, "v"]));
    const created = await api(key, "POST", "/v1/jobs", job({ metadata: { ...full, k31: tag } }));
    const at = await api(key, "GET", `/v1/jobs?${filters(31)}&metadata[k31]=${tag}&limit=100`);
    expect(at.status, JSON.stringify(at.body)).toBe(200);
    expect(at.body.data.map((j: { id: string }) => j.id)).toEqual([created.body.id]);
    for (const n of [33, 48, 200]) {
      const over = await api(key, "GET", `/v1/jobs?${filters(n)}&limit=100`);
      expect(over.status, `${n}: ${JSON.stringify(over.body)}`).toBe(400);
      expect(over.body.details[0]).toMatchObject({
        path: ["query"],
        message: expect.stringMatching(/at most 32 metadata filters/),
      });
    }
  });
});
