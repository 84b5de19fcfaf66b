import { exports } from "cloudflare:workers";
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

  it("reads a bounded number of cancellations from one batch, and no session id it did not issue", async () => {
    const s = await session(key);
    const batch = Array.from({ length: 2000 }, (_, i) => cancelled(i));
    expect((await mcp(key, batch, s)).status).toBeLessThan(500);
    expect((await mcp(key, cancelled(1), "../../etc")).status).toBe(202);
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
