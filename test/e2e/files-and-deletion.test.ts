import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { useLocalStack } from "../support/local-stack.ts";

const { fx, local } = useLocalStack();

describe("files and deletion over HTTP, with real storage", () => {
  it("uploads, lists, runs a job on the upload, deletes the job (its outputs' URLs stop working), then the file", async () => {
    const slot = await local.api.call("POST", "/v1/files", { fileName: "clip.mp4" });
    expect(slot.body).toMatchObject({ contentType: "video/mp4", status: "pending" });
    expect(
      (
        await fetch(slot.body.upload.url, {
          method: "PUT",
          body: readFileSync(fx.clip),
          headers: slot.body.upload.headers,
        })
      ).status,
    ).toBe(200);
    const listed = await local.api.call("GET", "/v1/files?origin=upload&limit=5");
    expect(listed.body.data.map((f: any) => f.id)).toContain(slot.body.id);

    const job = await local.runToEnd({
      inputs: { video: { type: "asset", assetId: slot.body.id } },
      outputs: { thumb: { fileName: "thumb.jpg" }, frames: { kind: "directory", fileName: "f_%02d.jpg" } },
      ffmpegArgs: ["-i", "{{video}}", "-frames:v", "1", "{{thumb}}", "-vf", "fps=1", "{{frames}}"],
    });
    expect(job.status, JSON.stringify(job)).toBe("completed");
    // The upload was read by range from storage while the job ran, not copied first.
    const size = readFileSync(fx.clip).length;
    expect(job.inputReads.video).toMatchObject({ copied: false, originBytes: expect.any(Number) });
    expect(job.inputReads.video.bytesRead).toBeGreaterThan(0);
    expect(job.inputReads.video.bytesRead).toBeLessThanOrEqual(3 * size);
    const output = (label: string) => job.outputs.find((o: any) => o.label === label);
    const urls = [output("thumb").downloadUrl, ...output("frames").files.map((f: any) => f.downloadUrl)];
    for (const url of urls) expect((await fetch(url)).status).toBe(200);
    const outputs = await local.api.call("GET", "/v1/files?origin=output");
    expect(outputs.body.data.filter((f: any) => f.jobId === job.id)).toHaveLength(2);

    expect((await local.api.call("DELETE", `/v1/files/${slot.body.id}`)).status).toBe(204);
    expect((await local.api.call("DELETE", `/v1/jobs/${job.id}`)).status).toBe(204);
    expect((await local.api.call("GET", `/v1/jobs/${job.id}`)).status).toBe(404);
    for (const url of urls) expect((await fetch(url)).status).toBe(404);
    expect((await local.api.call("GET", `/v1/files/${slot.body.id}`)).status).toBe(404);
  });

  it("an upload URL writes once: a second PUT is refused (412) and the bytes stay; after DELETE it writes nothing", async () => {
    const slot = await local.api.call("POST", "/v1/files", { fileName: "once.mp4" });
    const { url, headers } = slot.body.upload;
    const clip = readFileSync(fx.clip);
    expect((await fetch(url, { method: "PUT", body: clip, headers })).status).toBe(200);
    // Before the record turned ready, and after: storage refuses to replace the bytes.
    expect((await fetch(url, { method: "PUT", body: "replaced", headers })).status).toBe(412);
    expect((await local.api.call("GET", `/v1/files/${slot.body.id}`)).body).toMatchObject({
      status: "ready",
      size: clip.length,
    });
    expect((await fetch(url, { method: "PUT", body: "replaced", headers })).status).toBe(412);
    // The header is part of the signature: leaving it out does not get around it.
    expect(
      (await fetch(url, { method: "PUT", body: "replaced", headers: { "Content-Type": headers["Content-Type"] } }))
        .status,
    ).toBe(403);
    expect((await local.api.call("GET", `/v1/files/${slot.body.id}`)).body.size).toBe(clip.length);

    const deleted = await local.api.call("POST", "/v1/files", { fileName: "gone.mp4" });
    expect((await local.api.call("DELETE", `/v1/files/${deleted.body.id}`)).status).toBe(204);
    expect(
      (await fetch(deleted.body.upload.url, { method: "PUT", body: clip, headers: deleted.body.upload.headers }))
        .status,
    ).toBe(412);
  });
});
