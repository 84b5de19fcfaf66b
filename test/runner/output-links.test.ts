import { existsSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { jobRequest } from "./runner-api.ts";
import { useRunnerHarness } from "./runner-harness.ts";
import { swapForLink } from "../support/planted-links.ts";

/**
 * A job's process may replace what it wrote with a link (code execution in ffmpeg is what the
 * sandbox is for): the runner must store the file the job made, or nothing, never what a link
 * points at. The test plays the hostile process: while ffmpeg runs (reading its input in real time,
 * `-re`), it swaps the output in the job's folder for a link to a secret only the runner can read,
 * as /etc/shadow or another job's input would be.
 */
const workDir = join(tmpdir(), `ffjobs-links-${process.pid}`);
const secretDir = join(tmpdir(), `ffjobs-links-secret-${process.pid}`);
const SECRET = `secret-${crypto.randomUUID()}`;
const { h, input } = useRunnerHarness({ RUNNER_WORK_DIR: workDir, RUNNER_CONCURRENCY: "2" });
mkdirSync(secretDir, { recursive: true, mode: 0o700 });
writeFileSync(join(secretDir, "shadow"), SECRET, { mode: 0o600 });
afterAll(() => rmSync(secretDir, { recursive: true, force: true }));

/** A real-time copy of the 3 s clip: the output exists from the first second, the job runs about 3 s. */
const slowCopy = (out: string) => ["-re", "-i", "{{in}}", "-map", "0", "-c", "copy", out];

/** Waits for `path` to appear (the command has opened it), then lets `plant` replace it. */
async function whenWritten(path: string, plant: () => void): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!existsSync(path)) {
    if (Date.now() > deadline) throw new Error(`${path} never appeared`);
    await new Promise((r) => setTimeout(r, 20));
  }
  plant();
}

const storedSecret = () => [...h.storage.received.values()].some((r) => r.body.toString().includes(SECRET));

async function runWhile(req: ReturnType<typeof jobRequest>, path: string, plant: () => void) {
  await h.api.submit(req);
  await whenWritten(join(workDir, req.jobId, path), plant);
  return (await h.api.waitFor(req.jobId, (s) => s.state === "finished")).outcome!;
}

describe("outputs are never read through links the job planted", () => {
  it("a file output swapped for a link to a secret fails the job, OUTPUT_MISSING, and the secret is stored nowhere", async () => {
    const uploadUrl = `${h.storage.url}/${crypto.randomUUID()}/o.mkv`;
    const req = jobRequest({
      args: slowCopy("{{out}}"),
      inputs: [input("in", "clip.mp4")],
      outputs: [{ name: "out", fileName: "o.mkv", contentType: "video/x-matroska", uploadUrl }],
    });
    const outcome = await runWhile(req, "out/out.mkv", () =>
      swapForLink(join(workDir, req.jobId, "out/out.mkv"), join(secretDir, "shadow")),
    );
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ status: "failed", errorCode: "OUTPUT_MISSING" });
    expect(outcome.errorMessage).toMatch(/symbolic link/);
    expect(outcome.errorMessage).not.toContain(secretDir);
    expect(h.storage.received.has(new URL(uploadUrl).pathname)).toBe(false);
    expect(storedSecret()).toBe(false);
  });

  it("the same for an output sent to the client's own storage", async () => {
    const uploadUrl = `${h.storage.url}/${crypto.randomUUID()}/o.mkv`;
    const req = jobRequest({
      args: slowCopy("{{out}}"),
      inputs: [input("in", "clip.mp4")],
      outputs: [
        { name: "out", fileName: "o.mkv", contentType: "video/x-matroska", uploadUrl, destination: { headers: {} } },
      ],
    });
    const outcome = await runWhile(req, "out/out.mkv", () =>
      swapForLink(join(workDir, req.jobId, "out/out.mkv"), join(secretDir, "shadow")),
    );
    expect(outcome).toMatchObject({ status: "failed", errorCode: "OUTPUT_MISSING" });
    expect(storedSecret()).toBe(false);
  });

  it("a FIFO in an output's place fails the job at once instead of hanging the runner on its open", async () => {
    const uploadUrl = `${h.storage.url}/${crypto.randomUUID()}/o.mkv`;
    const req = jobRequest({
      args: slowCopy("{{out}}"),
      inputs: [input("in", "clip.mp4")],
      outputs: [{ name: "out", fileName: "o.mkv", contentType: "video/x-matroska", uploadUrl }],
    });
    const outcome = await runWhile(req, "out/out.mkv", () => {
      const path = join(workDir, req.jobId, "out/out.mkv");
      execFileSync("mkfifo", [`${path}.fifo`]);
      renameSync(`${path}.fifo`, path);
    });
    expect(outcome).toMatchObject({ status: "failed", errorCode: "OUTPUT_MISSING" });
    expect(outcome.errorMessage).toMatch(/not a regular file/);
  });

  it("a directory output's folder swapped for a link to another folder is not walked", async () => {
    const prefix = `/${crypto.randomUUID()}/`;
    const req = jobRequest({
      args: ["-re", "-i", "{{in}}", "-map", "0", "-c", "copy", "-f", "segment", "-segment_time", "1", "{{segs}}"],
      inputs: [input("in", "clip.mp4")],
      outputs: [
        {
          name: "segs",
          fileName: "seg_%03d.ts",
          contentType: "video/mp2t",
          uploadUrl: `${h.storage.url}${prefix}`,
          kind: "directory",
          uploadToken: "tok",
        },
      ],
    });
    const outcome = await runWhile(req, "out/segs/seg_000.ts", () => {
      const dir = join(workDir, req.jobId, "out/segs");
      renameSync(dir, `${dir}.real`);
      symlinkSync(secretDir, dir);
    });
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ status: "failed", errorCode: "OUTPUT_MISSING" });
    expect(outcome.errorMessage).toMatch(/directory output "segs".*symbolic link/);
    expect([...h.storage.received.keys()].some((k) => k.startsWith(prefix))).toBe(false);
    expect(storedSecret()).toBe(false);
  });

  it("a file inside a directory output swapped for a link fails the job, and none of the secret is stored", async () => {
    const prefix = `/${crypto.randomUUID()}/`;
    const req = jobRequest({
      args: [
        "-re",
        "-i",
        "{{in}}",
        "-an",
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        "-g",
        "25",
        "-f",
        "segment",
        "-segment_time",
        "1",
        "{{segs}}",
      ],
      inputs: [input("in", "clip.mp4")],
      outputs: [
        {
          name: "segs",
          fileName: "seg_%03d.ts",
          contentType: "video/mp2t",
          uploadUrl: `${h.storage.url}${prefix}`,
          kind: "directory",
          uploadToken: "tok",
        },
      ],
    });
    // The first segment is finished once the second one is being written.
    const outcome = await runWhile(req, "out/segs/seg_001.ts", () =>
      swapForLink(join(workDir, req.jobId, "out/segs/seg_000.ts"), join(secretDir, "shadow")),
    );
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ status: "failed", errorCode: "OUTPUT_MISSING" });
    expect(storedSecret()).toBe(false);
  });
});
