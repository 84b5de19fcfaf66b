import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { app } from "../../src/api/app.ts";
import { createAccount, insertQueuedJob } from "./helpers.ts";

describe("unexpected failures", () => {
  it("answer 500 INTERNAL with no internals in the body", async () => {
    const { accountId, key } = await createAccount();
    const id = await insertQueuedJob(accountId);
    // A deployment missing its storage secret: building download URLs throws deep inside.
    const misconfigured = { ...env, R2_SECRET_ACCESS_KEY: "" };
    const res = await app.fetch(
      new Request(`https://ffjobs.test/v1/jobs/${id}`, { headers: { Authorization: `Bearer ${key}` } }),
      misconfigured,
    );
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ error: "Internal error", code: "INTERNAL" });
    expect(text).not.toMatch(/R2_|secret|\.ts|at /i);
  });
});
