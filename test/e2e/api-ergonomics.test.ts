import { describe, expect, it } from "vitest";
import { useLocalStack } from "../support/local-stack.ts";

const { local } = useLocalStack();

/** A raw HTTP call with extra headers (the shared client sends only JSON and the key). */
async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${local.stack.baseUrl}${path}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${local.stack.apiKey}`, "Content-Type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

describe("API ergonomics over HTTP on the local stack", () => {
  const probeJob = () => ({
    binary: "ffprobe",
    inputs: { clip: { type: "url", url: `${local.media.url}/clip.mp4` } },
    ffmpegArgs: ["-v", "error", "-show_format", "{{clip}}"],
    metadata: { batch: crypto.randomUUID() },
  });

  it("Idempotency-Key: a retried create returns the same job; another body with the key is a 409", async () => {
    const key = crypto.randomUUID();
    const body = probeJob();
    const first = await post("/v1/jobs", body, { "Idempotency-Key": key });
    const again = await post("/v1/jobs", body, { "Idempotency-Key": key });
    expect([first.status, again.status]).toEqual([202, 202]);
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect((await post("/v1/jobs", probeJob(), { "Idempotency-Key": key })).body.code).toBe("IDEMPOTENCY_KEY_REUSED");
  });

  it("metadata: returned with the finished job and a filter on the list; timeoutSeconds shown", async () => {
    const body = { ...probeJob(), timeoutSeconds: 60 };
    const job = await local.runToEnd(body);
    expect(job).toMatchObject({ status: "completed", metadata: body.metadata, timeoutSeconds: 60 });
    const listed = await local.api.call("GET", `/v1/jobs?metadata[batch]=${body.metadata.batch}`);
    expect(listed.body.data.map((j: any) => j.id)).toEqual([job.id]);
  });

  it("dry run with a probe of the inputs, and capabilities from the runner's binaries", async () => {
    const dry = await post("/v1/jobs/validate?probe=true", probeJob());
    expect(dry.body).toMatchObject({
      valid: true,
      inputs: { clip: { ok: true } },
      estimate: { credits: expect.any(Number) },
    });
    expect(dry.body.commands[0].argv.at(-1)).toBe("/job/in/clip.mp4");
    const caps = await local.api.call("GET", "/v1/capabilities");
    expect(caps.body.encoders.find((e: any) => e.name === "libx264")).toMatchObject({ allowed: true });
  });

  it("errors that say what to do", async () => {
    const res = await post("/v1/jobs", {
      inputs: { a: { type: "url", url: "http://10.1.2.3/a.mp4" } },
      ffmpegArgs: ["ffmpeg", "-i", "{{a}}", "-f", "null", "-"],
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^Invalid request: /);
    expect(res.body.details.map((d: any) => d.path.join("."))).toEqual(
      expect.arrayContaining(["ffmpegArgs.0", "inputs.a.url"]),
    );
  });
});
