import { describe, expect, it } from "vitest";
import { isFinished } from "../support/api-client.ts";
import { useLocalStack } from "../support/local-stack.ts";

/** A chain of two jobs on the local stack: the second reads the first's stored output, with no client in between. */
const { fx, local } = useLocalStack();

describe("a chain of jobs", () => {
  it("runs the second job on the first's output once it is stored, without the client", async () => {
    // -re: the parent takes about the clip's 3 s, so the child is seen waiting for it.
    const parent = await local.api.call("POST", "/v1/jobs", {
      inputs: { clip: { type: "url", url: `${local.media.url}/${fx.clip.split("/").pop()}` } },
      outputs: { small: { fileName: "small.mp4" } },
      ffmpegArgs: [
        "-re",
        "-i",
        "{{clip}}",
        "-vf",
        "scale=160:-2",
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        "-c:a",
        "aac",
        "{{small}}",
      ],
    });
    expect(parent.status).toBe(202);
    const child = await local.api.call("POST", "/v1/jobs", {
      binary: "ffprobe",
      inputs: { video: { type: "job", jobId: parent.body.id, output: "small" } },
      ffmpegArgs: ["-v", "error", "-print_format", "json", "-show_streams", "{{video}}"],
      // Also named for ordering alone: the same wait, and no second start.
      dependsOn: [parent.body.id],
    });
    expect(child.status, JSON.stringify(child.body)).toBe(202);
    const waiting = await local.api.waitUntil(
      child.body.id,
      (j: any) => j.queuedReason !== null || isFinished(j),
      30_000,
    );
    expect(waiting.queuedReason).toMatch(
      new RegExp(`^waiting for job ${parent.body.id} \\((queued|running)\\) to complete$`),
    );

    const done = await local.api.waitUntil(child.body.id, isFinished, 60_000);
    expect(done, JSON.stringify(done)).toMatchObject({
      status: "completed",
      queuedReason: null,
      dependsOn: [parent.body.id],
      attempts: 1,
      inputs: { video: { type: "job", jobId: parent.body.id, output: "small" } },
    });
    const first = (await local.api.call("GET", `/v1/jobs/${parent.body.id}`)).body;
    expect(first.status).toBe("completed");
    // The child started after its parent ended, within the chain's check interval (2 s) and some slack.
    expect(Date.parse(done.startedAt)).toBeGreaterThanOrEqual(Date.parse(first.finishedAt));
    expect(Date.parse(done.startedAt) - Date.parse(first.finishedAt)).toBeLessThan(5_000);
    const result = (await local.api.call("GET", `/v1/jobs/${child.body.id}/result`)).body;
    const streams = JSON.parse(result.stdout).streams;
    expect(streams.find((s: any) => s.codec_type === "video")).toMatchObject({ codec_name: "h264", width: 160 });
  }, 120_000);
});
