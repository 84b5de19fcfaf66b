import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { useLocalStack } from "../support/local-stack.ts";

const { fx, local } = useLocalStack();

describe("files and deletion over HTTP, with real storage", () => {
  it("uploads, lists, runs a job on the upload, deletes the job (its outputs' URLs stop working), then the file", async () => {
    const slot = await local.api.call("POST", "/v1/files", { fileName: "clip.mp4" });
    expect(slot.body).toMatchObject({ contentType: "video/mp4", status: "pending" });
    expect((await fetch(slot.body.upload.url, { method: "PUT", body: readFileSync(fx.clip), headers: slot.body.upload.headers })).status).toBe(200);
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
});
