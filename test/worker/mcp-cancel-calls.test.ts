import { env, exports } from "cloudflare:workers";
import { deleteExpiredCalls, MAX_EARLY_CANCELS_PER_ACCOUNT } from "../../src/mcp/mcp-calls.ts";
import { beforeAll, describe, expect, it } from "vitest";
import { api, createAccount, mediaUrl, until } from "./helpers.ts";

/*
 * The MCP server's cancellation (src/mcp/mcp-calls.ts), in the Worker's runtime with raw JSON-RPC as a
 * client sends it: a `notifications/cancelled` is a request of its own, found by session and call id;
 * the order of the two, and who may send one, are what a client cannot be trusted to get right.
 */
let key: string;
let otherKey: string;
beforeAll(async () => {
  ({ key } = await createAccount());
  ({ key: otherKey } = await createAccount());
});

async function mcp(apiKey: string, body: unknown, session?: string) {
  const res = await exports.default.fetch(
    new Request("https://ffjobs.test/mcp", {
      method: "POST",
      headers: {
        Authorization: `Bearer ${apiKey}`,
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        ...(session ? { "Mcp-Session-Id": session } : {}),
      },
      body: JSON.stringify(body),
    }),
  );
  const text = await res.text();
  const data = text.split("\n").find((line) => line.startsWith("data: "));
  return { status: res.status, headers: res.headers, message: data ? JSON.parse(data.slice(6)) : null };
}

async function session(apiKey: string): Promise<string> {
  const init = await mcp(apiKey, {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
  });
  expect(init.message.result.serverInfo.name).toBe("ffjobs");
  return init.headers.get("Mcp-Session-Id")!;
}

const cancelled = (requestId: number) => ({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId } });
const runJob = (id: number) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: {
    name: "run_job",
    arguments: {
      inputs: { a: { type: "url", url: mediaUrl("clip.mp4") } },
      // Read at its own pace, five times over: still running when the test's cancellations arrive.
      ffmpegArgs: ["-re", "-stream_loop", "5", "-i", "{{a}}", "-f", "null", "-"],
      waitSeconds: 0,
    },
  },
});
const countCalls = async () => (await env.DB.prepare("SELECT COUNT(*) AS n FROM mcp_calls").first<{ n: number }>())!.n;
const statusOf = async (id: string) => (await api(key, "GET", `/v1/jobs/${id}`)).body.status;

describe("cancelling an MCP call", () => {
  it("names a fresh session at initialize", async () => {
    const [a, b] = [await session(key), await session(key)];
    expect(a).toMatch(/^[0-9a-f-]{36}$/);
    expect(b).not.toBe(a);
  });

  it("cancels the call's job when the cancellation came before the job", async () => {
    const s = await session(key);
    expect((await mcp(key, cancelled(7), s)).status).toBe(202);
    const call = await mcp(key, runJob(7), s);
    const id = call.message.result.structuredContent.id;
    expect(
      await until(
        () => statusOf(id),
        (st) => st === "canceled",
      ),
    ).toBe("canceled");
  });

  it("leaves the job alone when another account (or another session) cancels that call id", async () => {
    const s = await session(key);
    const call = await mcp(key, runJob(3), s);
    const id = call.message.result.structuredContent.id;
    expect((await mcp(otherKey, cancelled(3), s)).status).toBe(202);
    expect((await mcp(key, cancelled(3), await session(key))).status).toBe(202);
    expect(await statusOf(id)).not.toBe("canceled");
    await mcp(key, cancelled(3), s);
    expect(
      await until(
        () => statusOf(id),
        (st) => st === "canceled",
      ),
    ).toBe("canceled");
  });

  it("takes one message per request: a batch (a call with its own cancellation) is refused", async () => {
    const s = await session(key);
    const batch = await mcp(key, [runJob(11), cancelled(11)], s);
    expect(batch.status).toBe(400);
  });

  it("keeps a call's key the same size whatever its id, and only so many cancellations without a job", async () => {
    const s = await session(key);
    const before = await countCalls();
    expect((await mcp(key, cancelled("\u0001".repeat(120) as unknown as number), s)).status).toBe(202);
    const keys = await env.DB.prepare("SELECT length(call_key) AS n FROM mcp_calls").all<{ n: number }>();
    expect(new Set(keys.results.map((r) => r.n))).toEqual(new Set([64]));
    // A long id's call is not linked (it could not be cancelled anyway).
    const long = await mcp(key, { ...runJob(1), id: "x".repeat(5000) }, s);
    expect(long.message.result.isError).toBeFalsy();
    expect(await countCalls()).toBe(before + 1);

    const { key: floodKey, accountId: flooder } = await createAccount();
    const flood = await session(floodKey);
    for (let i = 0; i < MAX_EARLY_CANCELS_PER_ACCOUNT + 5; i++) await mcp(floodKey, cancelled(1000 + i), flood);
    const early = await env.DB.prepare("SELECT COUNT(*) AS n FROM mcp_calls WHERE account_id = ? AND job_id IS NULL")
      .bind(flooder)
      .first<{ n: number }>();
    expect(early!.n).toBe(MAX_EARLY_CANCELS_PER_ACCOUNT);
    // Swept a minute on: a cancellation whose job never came.
    await deleteExpiredCalls(env.DB, new Date(Date.now() + 61_000));
    expect(
      (await env.DB.prepare("SELECT COUNT(*) AS n FROM mcp_calls WHERE job_id IS NULL").first<{ n: number }>())!.n,
    ).toBe(0);
  });

  it("starts a call id used again uncancelled (a client that reconnected with its session)", async () => {
    const s = await session(key);
    const first = (await mcp(key, runJob(50), s)).message.result.structuredContent.id;
    await mcp(key, cancelled(50), s);
    expect(
      await until(
        () => statusOf(first),
        (st) => st === "canceled",
      ),
    ).toBe("canceled");
    const again = (await mcp(key, runJob(50), s)).message.result.structuredContent.id;
    expect(await statusOf(again)).not.toBe("canceled");
    await api(key, "POST", `/v1/jobs/${again}/cancel`);
  });

  it("refuses ids and waits a tool cannot take, before the API", async () => {
    const s = await session(key);
    const tool = (name: string, args: unknown) =>
      mcp(key, { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name, arguments: args } }, s);
    for (const id of [".", "..", "../admin/metrics", { toString: "x" }, 7]) {
      const got = (await tool("get_job", { id })).message.result;
      expect(got, JSON.stringify(id)).toMatchObject({ isError: true, structuredContent: { code: "INVALID_REQUEST" } });
      expect(got.structuredContent.details[0].path).toEqual(["id"]);
    }
    for (const waitSeconds of [1e9, 46, -1, 2.5]) {
      const got = (await tool("run_job", { ...runJob(0).params.arguments, waitSeconds })).message.result;
      expect(got.structuredContent.details[0].path, String(waitSeconds)).toEqual(["waitSeconds"]);
    }
    const infinite = await exports.default.fetch(
      new Request("https://ffjobs.test/mcp", {
        method: "POST",
        headers: {
          Authorization: `Bearer ${key}`,
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
        },
        body: '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"wait_for_job","arguments":{"id":"00000000-0000-4000-8000-000000000000","waitSeconds":1e400}}}',
      }),
    );
    expect(await infinite.text()).toContain("waitSeconds");
    expect((await tool("get_template", { name: ".." })).message.result.structuredContent.details[0].path).toEqual([
      "name",
    ]);
  });

  it("answers GET and DELETE with 405: no stream to hold, no session to end", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await exports.default.fetch(
        new Request("https://ffjobs.test/mcp", { method, headers: { Authorization: `Bearer ${key}` } }),
      );
      expect(res.status, method).toBe(405);
      expect(res.headers.get("Allow")).toBe("POST");
    }
  });
});
