import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { api, countRows, createAccount } from "./helpers.ts";

let key: string;
let otherKey: string;
beforeAll(async () => {
  ({ key } = await createAccount());
  ({ key: otherKey } = await createAccount());
});

const job = (n = 1) => ({
  inputs: { a: { type: "url", url: `https://media.example.com/${n}.mp4` } },
  ffmpegArgs: ["-i", "{{a}}", "-f", "null", "-"],
});
const idem = (k: string) => ({ "Idempotency-Key": k });

describe("Idempotency-Key", () => {
  it("replays a job creation: same id, same 202, one job", async () => {
    const k = crypto.randomUUID();
    const before = await countRows("jobs");
    const first = await api(key, "POST", "/v1/jobs", job(), idem(k));
    expect(first.status).toBe(202);
    // Same body with its keys in another order is the same request.
    const { ffmpegArgs, inputs } = job();
    const again = await api(key, "POST", "/v1/jobs", { ffmpegArgs, inputs }, idem(k));
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.headers.get("Location")).toBe(`/v1/jobs/${first.body.id}`);
    expect(await countRows("jobs")).toBe(before + 1);
  });

  it("refuses the same key with another body with 409 IDEMPOTENCY_KEY_REUSED, creating nothing", async () => {
    const k = crypto.randomUUID();
    await api(key, "POST", "/v1/jobs", job(1), idem(k));
    const before = await countRows("jobs");
    const other = await api(key, "POST", "/v1/jobs", job(2), idem(k));
    expect(other.status).toBe(409);
    expect(other.body.code).toBe("IDEMPOTENCY_KEY_REUSED");
    expect(await countRows("jobs")).toBe(before);
  });

  it("creates one job from concurrent duplicates, and answers them all with it", async () => {
    const k = crypto.randomUUID();
    const before = await countRows("jobs");
    const answers = await Promise.all(Array.from({ length: 6 }, () => api(key, "POST", "/v1/jobs", job(3), idem(k))));
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(202));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(await countRows("jobs")).toBe(before + 1);
  });

  it("keeps keys per account and per operation, remembers only successes, and lets a key be reused once it expired", async () => {
    const k = crypto.randomUUID();
    const mine = await api(key, "POST", "/v1/jobs", job(4), idem(k));
    const theirs = await api(otherKey, "POST", "/v1/jobs", job(4), idem(k));
    expect(theirs.status).toBe(202);
    expect(theirs.body.id).not.toBe(mine.body.id);
    const file = await api(key, "POST", "/v1/files", { fileName: "a.mp4", contentType: "video/mp4" }, idem(k));
    expect(file.status).toBe(201);
    const fileAgain = await api(key, "POST", "/v1/files", { fileName: "a.mp4", contentType: "video/mp4" }, idem(k));
    expect(fileAgain).toMatchObject({ status: 201, body: { id: file.body.id } });

    // A refused request burns no key: corrected, the retry under the same key creates the job.
    const bad = crypto.randomUUID();
    expect((await api(key, "POST", "/v1/jobs", { ffmpegArgs: [] }, idem(bad))).status).toBe(400);
    expect((await api(key, "POST", "/v1/jobs", job(5), idem(bad))).status).toBe(202);

    await env.DB.prepare("UPDATE idempotency_keys SET expires_at = '2000-01-01T00:00:00.000Z' WHERE idem_key = ?1")
      .bind(k)
      .run();
    const fresh = await api(key, "POST", "/v1/jobs", job(4), idem(k));
    expect(fresh.status).toBe(202);
    expect(fresh.body.id).not.toBe(mine.body.id);
  });

  it("frees a key whose first request died before answering, once its lease is over", async () => {
    const k = crypto.randomUUID();
    const long = new Date(Date.now() - 3 * 60_000).toISOString();
    await api(key, "POST", "/v1/jobs", job(6), idem(k));
    await env.DB.prepare(
      "UPDATE idempotency_keys SET status = NULL, response_json = NULL, created_at = ?2 WHERE idem_key = ?1",
    )
      .bind(k, long)
      .run();
    expect((await api(key, "POST", "/v1/jobs", job(6), idem(k))).status).toBe(202);
  });

  it("refuses a malformed key", async () => {
    expect((await api(key, "POST", "/v1/jobs", job(), idem("x".repeat(256)))).status).toBe(400);
  });
});
