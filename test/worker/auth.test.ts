import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { api, createAccount } from "./helpers.ts";

describe("authentication", () => {
  let key: string;
  beforeAll(async () => {
    ({ key } = await createAccount());
  });

  it.each([
    ["no header", null],
    ["an unknown key", `ffj_${"A".repeat(43)}`],
    ["a malformed key", "hello"],
  ])("answers 401 with a Bearer challenge for %s", async (_label, k) => {
    const res = await api(k, "GET", "/v1/jobs");
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);
    expect(res.body).toEqual({ error: expect.any(String), code: "UNAUTHORIZED" });
  });

  it("guards every /v1 endpoint, even unknown ones", async () => {
    const id = crypto.randomUUID();
    for (const [method, path] of [
      ["POST", "/v1/jobs"],
      ["GET", `/v1/jobs/${id}`],
      ["GET", `/v1/jobs/${id}/result`],
      ["POST", `/v1/jobs/${id}/cancel`],
      ["POST", "/v1/files"],
      ["GET", `/v1/files/${id}`],
      ["GET", "/v1/nope"],
    ]) {
      expect((await api(null, method, path)).status, `${method} ${path}`).toBe(401);
    }
  });

  it("accepts a live key and refuses it once revoked", async () => {
    const { key: k } = await createAccount();
    expect((await api(k, "GET", "/v1/jobs")).status).toBe(200);
    await env.DB.prepare("UPDATE api_keys SET revoked_at = ?1").bind(new Date().toISOString()).run();
    expect((await api(k, "GET", "/v1/jobs")).status).toBe(401);
  });

  it("stores keys only as hashes", async () => {
    const rows = await env.DB.prepare("SELECT key_hash, key_prefix FROM api_keys").all<{
      key_hash: string;
      key_prefix: string;
    }>();
    for (const r of rows.results) {
      expect(r.key_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(r.key_prefix.length).toBeLessThan(12);
    }
    expect(JSON.stringify(rows.results)).not.toContain(key);
  });
});
