import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, type Progress } from "@modelcontextprotocol/sdk/types.js";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createJobSchema } from "../../src/api/schemas/job-request.ts";
import { useLocalStack } from "../support/local-stack.ts";
import { makeUserKey } from "../support/user-key.ts";

/*
 * The official MCP SDK's client (nobody here wrote it) against `npm run dev`'s stack at /mcp, as an
 * agent's host connects: Streamable HTTP with the account's API key.
 */
const { fx, local } = useLocalStack();
const clients: Client[] = [];

async function connect(apiKey: string): Promise<Client> {
  const client = new Client({ name: "ffjobs-test", version: "1" });
  const transport = new StreamableHTTPClientTransport(new URL(`${local.stack.baseUrl}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

type Answer = { isError?: boolean; text: string; value: any };
async function call(client: Client, name: string, args: Record<string, unknown>, options = {}): Promise<Answer> {
  const got = await client.callTool({ name, arguments: args }, CallToolResultSchema, options);
  const text = (got.content as { type: string; text: string }[])[0].text;
  return { isError: got.isError as boolean | undefined, text, value: got.structuredContent };
}

let agent: Client;
beforeAll(async () => {
  agent = await connect(local.stack.apiKey);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
});

const media = (file: string) => ({ type: "url", url: `${local.media.url}/${file.split("/").pop()}` });

describe("the MCP server at /mcp, used by the official MCP SDK client", () => {
  it("lists the tools, their input schemas the API's own", async () => {
    const { tools } = await agent.listTools();
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining([
        "list_presets",
        "get_policy",
        "run_job",
        "run_preset",
        "run_template",
        "list_templates",
        "get_template",
        "wait_for_job",
        "validate_job",
        "get_job",
        "get_job_result",
        "cancel_job",
        "list_jobs",
        "create_upload",
        "list_files",
        "delete_file",
      ]),
    );
    const runJob = tools.find((t) => t.name === "run_job")!;
    const api = z.toJSONSchema(createJobSchema, { io: "input" }) as { properties: Record<string, unknown> };
    expect(Object.keys(runJob.inputSchema.properties!).sort()).toEqual(
      [...Object.keys(api.properties), "waitSeconds"].sort(),
    );
    expect(runJob.inputSchema.properties!.ffmpegArgs).toEqual(api.properties.ffmpegArgs);
  });

  it("runs a probe and reads its result", async () => {
    const job = await call(agent, "run_job", {
      binary: "ffprobe",
      inputs: { clip: media(fx.clip) },
      ffmpegArgs: ["-print_format", "json", "-show_format", "{{clip}}"],
    });
    expect(job.isError, job.text).toBeFalsy();
    expect(job.value).toMatchObject({ status: "completed", runtimeSeconds: expect.any(Number) });
    const result = await call(agent, "get_job_result", { id: job.value.id });
    expect(result.value).toMatchObject({
      exitCode: 0,
      probe: { format: { format_name: expect.stringContaining("mp4") } },
    });
  });

  it("validates a command before running it, and says what is wrong with a bad one", async () => {
    const good = await call(agent, "validate_job", {
      job: { inputs: { clip: media(fx.clip) }, ffmpegArgs: ["-i", "{{clip}}", "-f", "null", "-"] },
    });
    expect(good.value).toMatchObject({ valid: true });
    const bad = await call(agent, "validate_job", { job: { ffmpegArgs: ["-f", "lavfi", "-i", "testsrc", "out.mp4"] } });
    expect(bad.value).toMatchObject({ valid: false });
  });

  it("runs a preset to its outputs' download URLs", async () => {
    const job = await call(agent, "run_preset", { preset: "thumbnail", inputs: { video: media(fx.clip) } });
    expect(job.isError, job.text).toBeFalsy();
    expect(job.value.status).toBe("completed");
    const [output] = job.value.outputs;
    const download = await fetch(output.downloadUrl);
    expect(download.status).toBe(200);
    expect((await download.arrayBuffer()).byteLength).toBeGreaterThan(100);
  });

  it("reports a preset's progress, and cancelling the call cancels its job", async () => {
    const seen: Progress[] = [];
    const abort = new AbortController();
    const running = call(
      agent,
      "run_preset",
      { preset: "web-mp4", inputs: { video: media(fx.long) } },
      {
        signal: abort.signal,
        onprogress: (p: Progress) => {
          seen.push(p);
          if (p.progress > 0) abort.abort();
        },
      },
    ).catch((err: Error) => err);
    expect(await running).toBeInstanceOf(Error);
    expect(seen.at(-1)).toMatchObject({ total: 100, message: expect.stringMatching(/^running \d/) });
    expect(seen.map((p) => p.progress)).toEqual([...seen.map((p) => p.progress)].sort((a, b) => a - b));

    const { value: page } = await call(agent, "list_jobs", { limit: 1 });
    const id = page.data[0].id;
    const ended = await call(agent, "wait_for_job", { id, waitSeconds: 30 });
    expect(ended.value).toMatchObject({ status: "canceled", errorCode: "CANCELED" });
  });

  it("lists the account's templates and runs one with values, refusing a value the policy refuses", async () => {
    const created = await fetch(`${local.stack.baseUrl}/v1/templates`, {
      method: "POST",
      headers: { Authorization: `Bearer ${local.stack.apiKey}`, "Content-Type": "application/json" },
      body: JSON.stringify({
        name: "mcp-probe",
        variables: { src: { type: "url" }, entries: { type: "string", default: "format=duration" } },
        job: {
          binary: "ffprobe",
          inputs: { clip: { type: "url", url: "{{src}}" } },
          ffmpegArgs: ["-print_format", "json", "-show_entries", "{{entries}}", "{{clip}}"],
        },
      }),
    });
    expect(created.status).toBe(201);
    const { value: listed } = await call(agent, "list_templates", {});
    expect(listed.data).toContainEqual(expect.objectContaining({ name: "mcp-probe", variables: expect.any(Object) }));
    const job = await call(agent, "run_template", { template: "mcp-probe", vars: { src: media(fx.clip).url } });
    expect(job.isError, job.text).toBeFalsy();
    expect(job.value).toMatchObject({ status: "completed", template: { name: "mcp-probe", version: 1 } });
    const refused = await call(agent, "run_template", { template: "mcp-probe", vars: { src: "file:///etc/passwd" } });
    expect(refused).toMatchObject({ isError: true, value: { code: "INVALID_REQUEST" } });
    expect(refused.text).toContain("vars.src: must be an http or https URL");
  });

  it("creates an upload slot, runs a job on the file, lists and deletes it", async () => {
    const slot = await call(agent, "create_upload", { fileName: "clip.mp4" });
    expect(slot.isError, slot.text).toBeFalsy();
    const put = await fetch(slot.value.upload.url, {
      method: "PUT",
      headers: slot.value.upload.headers,
      body: readFileSync(fx.clip),
    });
    expect(put.status).toBeLessThan(300);
    const probe = await call(agent, "run_job", {
      binary: "ffprobe",
      inputs: { clip: { type: "asset", assetId: slot.value.id } },
      ffmpegArgs: ["-show_format", "{{clip}}"],
    });
    expect(probe.value, probe.text).toMatchObject({ status: "completed" });
    const { value: files } = await call(agent, "list_files", { origin: "upload" });
    expect(files.data.map((f: { id: string }) => f.id)).toContain(slot.value.id);
    expect((await call(agent, "delete_file", { id: slot.value.id })).isError).toBeFalsy();
    expect((await call(agent, "delete_file", { id: slot.value.id })).value).toMatchObject({ code: "NOT_FOUND" });
  });

  it("answers a refused command as a tool error with the API's code", async () => {
    const refused = await call(agent, "run_job", {
      ffmpegArgs: ["-f", "lavfi", "-i", "testsrc", "{{out}}"],
      outputs: { out: { fileName: "out.mp4" } },
    });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/^INVALID_REQUEST: /);
    expect(refused.value.code).toBe("INVALID_REQUEST");
    expect(refused.value.details).toContainEqual(expect.objectContaining({ path: ["ffmpegArgs", "1"] }));
    expect(refused.text).toContain("ffmpegArgs.1: ");
  });

  it("shows one account nothing of another's", async () => {
    const job = await call(agent, "run_job", {
      binary: "ffprobe",
      inputs: { clip: media(fx.clip) },
      ffmpegArgs: ["-show_format", "{{clip}}"],
    });
    const stranger = await connect(await makeUserKey(local.stack, "mcp-stranger"));
    for (const tool of ["get_job", "get_job_result", "cancel_job", "wait_for_job"]) {
      const got = await call(stranger, tool, { id: job.value.id });
      expect(got, tool).toMatchObject({ isError: true, value: { code: "NOT_FOUND" } });
    }
    const listed = await call(stranger, "list_jobs", {});
    expect(listed.value.data).toEqual([]);
  });

  it("refuses a client without the account's key", async () => {
    const res = await fetch(`${local.stack.baseUrl}/mcp`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);
  });
});
