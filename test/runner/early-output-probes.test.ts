import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, renameSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startEarlyProbes } from "../../container/src/early-output-probes.ts";
import { createJobFolder } from "../../container/src/job-folder.ts";
import { jobOwner, openFileIn, openTrustedDir } from "../../container/src/output-file.ts";
import { startOutputServer } from "../../container/src/output-server.ts";
import { createProber, summarizeProbe, type ProbeJson } from "../../container/src/probe.ts";
import { readSettings } from "../../container/src/settings.ts";
import { newRunnerSecret } from "../../src/runner/runner-secret.ts";
import { jobRequest } from "./runner-api.ts";

const settings = { ...readSettings({ RUNNER_CONTROL_SECRET: newRunnerSecret() }), isolation: "namespaces" as const };
const workDir = mkdtempSync(join(tmpdir(), "ffjobs-early-probes-"));
const opened: { close: () => Promise<void> }[] = [];
afterAll(async () => {
  for (const o of opened) await o.close().catch(() => {});
});

/** A job folder with these outputs declared, each written by real ffmpeg (`args` before the output path). */
async function folderWith(outputs: { fileName: string; args: string[] }[]) {
  const req = jobRequest({
    outputs: outputs.map((o, i) => ({
      name: `o${i}`,
      fileName: o.fileName,
      contentType: "application/octet-stream",
      uploadUrl: "http://127.0.0.1:9/unused",
    })),
  });
  const folder = await createJobFolder(workDir, req, "namespaces");
  const make = (i: number) => {
    execFileSync("ffmpeg", ["-v", "error", "-y", ...outputs[i].args, folder.hostPath(`o${i}`)!]);
  };
  const out = await openTrustedDir(join(folder.root, "out"));
  opened.push(out.handle);
  const open = async (i: number) => {
    const file = await openFileIn(out, folder.hostPath(`o${i}`)!.split("/").pop()!, jobOwner(null));
    opened.push(file.handle);
    return file;
  };
  return { req, folder, make, open };
}

/** A job not canceled. */
const running = () => new AbortController().signal;

const AV = ["-f", "lavfi", "-i", "testsrc=s=320x240:d=2", "-f", "lavfi", "-i", "sine=d=2", "-shortest"];
const IMAGE = ["-f", "lavfi", "-i", "testsrc=s=320x240", "-frames:v", "1"];
const AUDIO = ["-f", "lavfi", "-i", "sine=d=2"];
/** Containers as outputs come: seekable and not, index first or last, chosen by extension or by content. */
const FORMATS = [
  { fileName: "a.mp4", args: [...AV, "-c:v", "libx264", "-c:a", "aac"] },
  { fileName: "b.mp4", args: [...AV, "-c:v", "libx264", "-c:a", "aac", "-movflags", "+faststart"] },
  { fileName: "c.mkv", args: [...AV, "-c:v", "libx264", "-c:a", "aac"] },
  { fileName: "d.webm", args: [...AV, "-c:v", "libvpx", "-c:a", "libopus"] },
  { fileName: "e.ts", args: [...AV, "-c:v", "mpeg2video", "-c:a", "mp2"] },
  { fileName: "f.mp3", args: AUDIO },
  { fileName: "g.m4a", args: AUDIO },
  { fileName: "h.flac", args: AUDIO },
  { fileName: "i.jpg", args: IMAGE },
  // A PNG is read from its header (test/runner/png-header-probe.test.ts): another still here.
  { fileName: "j.bmp", args: IMAGE },
  { fileName: "k.webp", args: IMAGE },
  { fileName: "l.gif", args: [...IMAGE.slice(0, -1), "3"] },
  // Its index after 2 MB of samples: ffprobe reads the start, leaves, and asks for the end by range.
  {
    fileName: "m.mp4",
    args: [
      "-f",
      "lavfi",
      "-i",
      "testsrc=s=640x360:d=1,noise=alls=60:allf=t",
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
    ],
  },
];

describe("an output's probe started beside the command", () => {
  it("finds what the probe by path finds, for every kind of container (ffprobe's own answer, both ways)", async () => {
    const batches = [FORMATS.slice(0, 4), FORMATS.slice(4, 8), FORMATS.slice(8, 12), FORMATS.slice(12)];
    for (const batch of batches) {
      const { req, folder, make, open } = await folderWith(batch);
      const probes = await startEarlyProbes(req, folder, settings);
      for (let i = 0; i < batch.length; i++) make(i);
      const byPath = createProber(folder, settings);
      for (let i = 0; i < batch.length; i++) {
        const file = await open(i);
        const early = await probes.probe(`o${i}`, file, running());
        expect(early, batch[i].fileName).toBeTypeOf("object");
        expect(summarizeProbe(early as ProbeJson, file.size), batch[i].fileName).toEqual(
          summarizeProbe(await byPath(`o${i}`), file.size),
        );
        // The descriptor is still the runner's to read (the upload reads it too): a reader that left did not close it.
        expect((await file.handle.stat()).size).toBe(file.size);
      }
      await probes.close();
    }
  });

  it("reads the file the runner opened, not whatever is at the path by the time it reads", async () => {
    const { req, folder, make, open } = await folderWith([FORMATS[8]]);
    const probes = await startEarlyProbes(req, folder, settings);
    make(0);
    const file = await open(0);
    // After the check, something else takes the output's name (a PNG of another size, as a JPEG).
    const other = join(folder.root, "work", "other.png");
    execFileSync("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=s=64x48", "-frames:v", "1", other]);
    renameSync(other, folder.hostPath("o0")!);
    const found = summarizeProbe((await probes.probe("o0", file, running())) as ProbeJson, file.size);
    expect(found?.streams[0]).toMatchObject({ codec: "mjpeg", width: 320, height: 240 });
    await probes.close();
  });

  it("answers nothing for an output it was never given, and stops its probes when closed before that", async () => {
    const { req, folder } = await folderWith([FORMATS[8], FORMATS[9]]);
    const probes = await startEarlyProbes(req, folder, settings);
    expect(probes.probe("undeclared", null as never, running())).toBeUndefined();
    const started = Date.now();
    await probes.close();
    // Nothing of theirs is left waiting: the sandboxes are gone with their ffprobe.
    expect(sandboxesOf(folder.root)).toEqual([]);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("starts none for a PNG, whose metadata comes from its header after the command", async () => {
    const { req, folder } = await folderWith([
      { fileName: "still.png", args: IMAGE },
      { fileName: "still.jpg", args: IMAGE },
    ]);
    const probes = await startEarlyProbes(req, folder, settings);
    expect(probes.probe("o0", null as never, running())).toBeUndefined();
    // A JPEG's is started: its header does not settle what ffprobe says of it.
    expect(sandboxesOf(folder.root)).not.toEqual([]);
    await probes.close();
  });

  it("does not start where there is no namespace sandbox (the uid fallback's sandbox has no network for its relay)", async () => {
    const { req, folder } = await folderWith([FORMATS[8]]);
    const probes = await startEarlyProbes(req, folder, { ...settings, isolation: "uid" });
    expect(probes.probe("o0", null as never, running())).toBeUndefined();
  });
});

describe("stopping early probes", () => {
  it("stopped while their sandboxes are still being set up, they all exit, and none is left behind", async () => {
    // Killed during bubblewrap's set-up, a sandbox could be left waiting for good: they are left to exit.
    for (let delayMs = 0; delayMs <= 20; delayMs++) {
      const { req, folder } = await folderWith([FORMATS[8], FORMATS[9], FORMATS[10], FORMATS[11]]);
      const probes = await startEarlyProbes(req, folder, settings);
      await new Promise((r) => setTimeout(r, delayMs));
      const started = Date.now();
      await probes.close();
      // By themselves, before the grace after which they would be killed.
      expect(Date.now() - started, `closed ${delayMs} ms after start`).toBeLessThan(2000);
      expect(sandboxesOf(folder.root), `closed ${delayMs} ms after start`).toEqual([]);
      expect(existsSync(join(folder.root, "probe-io"))).toBe(false);
    }
  });

  it("a canceled job's probe stops at once and asks nothing more of the output", async () => {
    const { req, folder, make, open } = await folderWith([FORMATS[0]]);
    const probes = await startEarlyProbes(req, folder, settings);
    make(0);
    const canceled = new AbortController();
    canceled.abort();
    expect(await probes.probe("o0", await open(0), canceled.signal)).toBe("stopped");
    await probes.close();
    expect(sandboxesOf(folder.root)).toEqual([]);
  });

  it("keeps its socket in the job's folder, which the runner removes with the job (and finds at start if it died)", async () => {
    const { req, folder } = await folderWith([FORMATS[8]]);
    const probes = await startEarlyProbes(req, folder, settings);
    expect(existsSync(join(folder.root, "probe-io", "in.sock"))).toBe(true);
    await probes.close();
  });
});

/** The processes still running with the job folder in their command line (a sandbox binds it). */
function sandboxesOf(root: string): string[] {
  return execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })
    .split("\n")
    .filter((l) => l.includes(root));
}

describe("the output server the early probes read from", () => {
  it("holds a request until its output is released, then serves ranges of that descriptor; other paths and methods are refused", async () => {
    const path = join(workDir, "served.bin");
    writeFileSync(path, Buffer.from("0123456789"));
    const dir = await openTrustedDir(workDir);
    opened.push(dir.handle);
    const file = await openFileIn(dir, "served.bin", jobOwner(null));
    opened.push(file.handle);
    const server = await startOutputServer(["/out/a.bin"], join(workDir, "server-io"));
    const get = (p: string, headers: Record<string, string> = {}, method = "GET") =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const r = http.request({ socketPath: join(server.socketDir, "in.sock"), path: p, method, headers }, (res) => {
          let body = "";
          res.on("data", (c) => (body += c)).on("end", () => resolve({ status: res.statusCode!, body }));
        });
        r.on("error", reject).end();
      });
    expect((await get("/out/other.bin")).status).toBe(404);
    expect((await get("/out/a.bin", {}, "DELETE")).status).toBe(404);
    let answered = false;
    const held = get("/out/a.bin", { range: "bytes=2-5" }).then((r) => {
      answered = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(answered).toBe(false);
    server.release("/out/a.bin", file);
    expect(await held).toEqual({ status: 206, body: "2345" });
    expect(await get("/out/a.bin")).toEqual({ status: 200, body: "0123456789" });
    await server.close();
  });
});
