import { describe, expect, it } from "vitest";
import { jobRequest } from "./runner-api.ts";
import { useRunnerHarness } from "./runner-harness.ts";

const { h, input } = useRunnerHarness({ RUNNER_CONCURRENCY: "1" });

/** A directory output uploaded to the loopback receiver under a fresh prefix. */
const directory = (name: string, fileName: string, maxFiles = 1000) => {
  const prefix = `/${crypto.randomUUID()}/`;
  return {
    prefix,
    output: {
      name,
      fileName,
      contentType: "image/png",
      uploadUrl: `${h.storage.url}${prefix}`,
      kind: "directory" as const,
      uploadToken: "tok",
      maxFiles,
    },
  };
};

describe("directory outputs on the runner (real ffmpeg)", () => {
  it("uploads every file the command wrote in the output's folder, each under the prefix", async () => {
    const { prefix, output } = directory("frames", "f_%02d.png");
    const req = jobRequest({
      args: ["-i", "{{in}}", "-vf", "fps=1,scale=32:-2", "{{frames}}"],
      inputs: [input("in", "clip.mp4")],
      outputs: [output],
    });
    await h.api.submit(req);
    const done = await h.api.waitFor(req.jobId, (s) => s.state === "finished");
    expect(done.outcome, JSON.stringify(done.outcome)).toMatchObject({ status: "completed" });
    const [out] = done.outcome!.outputs;
    expect(out.files!.map((f) => f.path)).toEqual(["f_01.png", "f_02.png", "f_03.png"]);
    expect(out.mainFile).toBe("f_01.png");
    for (const f of out.files!) expect(h.storage.received.get(`${prefix}${f.path}`)?.body.length).toBe(f.size);
    expect(out.size).toBe(out.files!.reduce((n, f) => n + f.size, 0));
  });

  it("fails with LIMIT_EXCEEDED when the folder holds more files than the output allows, storing none", async () => {
    const { prefix, output } = directory("frames", "f_%02d.png", 2);
    const req = jobRequest({
      args: ["-i", "{{in}}", "-vf", "fps=1,scale=32:-2", "{{frames}}"],
      inputs: [input("in", "clip.mp4")],
      outputs: [output],
    });
    await h.api.submit(req);
    const done = await h.api.waitFor(req.jobId, (s) => s.state === "finished");
    expect(done.outcome).toMatchObject({ status: "failed", errorCode: "LIMIT_EXCEEDED" });
    expect(done.outcome!.errorMessage).toMatch(/3 files; the limit is 2|passed 2 files while the command ran/);
    expect([...h.storage.received.keys()].some((k) => k.startsWith(prefix))).toBe(false);
  });

  it("stops a command at the file limit while it writes, not after: 20,000 frames asked, stopped near the limit", async () => {
    const { prefix, output } = directory("frames", "f_%05d.png", 100);
    const req = jobRequest({
      args: ["-filter_complex", "testsrc2=s=16x16:r=1000:d=20", "{{frames}}"],
      outputs: [output],
    });
    await h.api.submit(req);
    const done = await h.api.waitFor(req.jobId, (s) => s.state === "finished");
    expect(done.outcome).toMatchObject({ status: "failed", errorCode: "LIMIT_EXCEEDED" });
    expect(done.outcome!.errorMessage).toMatch(
      /Directory output "frames" passed 100 files while the command ran \(\d+ so far\)/,
    );
    const written = Number(/\((\d+) so far\)/.exec(done.outcome!.errorMessage!)![1]);
    expect(written).toBeLessThan(20_000);
    expect([...h.storage.received.keys()].some((k) => k.startsWith(prefix))).toBe(false);
  });

  it("lets a later step read an image sequence an earlier step wrote", async () => {
    const { output } = directory("frames", "f_%02d.png");
    const req = jobRequest({
      args: [],
      steps: [
        { binary: "ffmpeg", args: ["-i", "{{in}}", "-vf", "fps=2,scale=32:-2", "{{frames}}"] },
        {
          binary: "ffprobe",
          args: [
            "-v",
            "error",
            "-count_frames",
            "-show_entries",
            "stream=nb_read_frames",
            "-of",
            "csv=p=0",
            "{{frames/f_%02d.png}}",
          ],
        },
      ],
      inputs: [input("in", "clip.mp4")],
      outputs: [output],
    });
    await h.api.submit(req);
    const done = await h.api.waitFor(req.jobId, (s) => s.state === "finished");
    expect(done.outcome, JSON.stringify(done.outcome)).toMatchObject({ status: "completed" });
    expect(done.outcome!.stdout.trim()).toBe("6");
  });
});
