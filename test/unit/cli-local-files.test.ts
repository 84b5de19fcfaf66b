import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
  lstatSync,
} from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FfjobsClient, Job } from "../../client/src/index.ts";
import { downloadTo, fileInFolder, UnsafeNameError } from "../../cli/src/local-files.ts";
import { runPreset } from "../../cli/src/run-preset.ts";
import { runRemote } from "../../cli/src/run-remote.ts";
import { toRemoteCommand } from "../../cli/src/remote-command.ts";

/**
 * The CLI against a hostile server: every name it sends for a local file is untrusted. The
 * "server" here is a fake client object answering what a hostile service would, and a loopback
 * HTTP server for the downloads; the files are real.
 */
let server: http.Server;
let base: string;
beforeAll(async () => {
  server = http.createServer((req, res) => res.end(`served ${req.url}`));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => server.close());

function hostileClient(files: { path: string }[], preset?: unknown, label = "out0"): FfjobsClient {
  const job = { id: "00000000-0000-4000-8000-000000000001", status: "completed", progress: null };
  const output = {
    label,
    downloadUrl: `${base}/main.m3u8`,
    files: [
      { path: "main.m3u8", downloadUrl: `${base}/main.m3u8` },
      ...files.map((f) => ({ ...f, downloadUrl: `${base}/${encodeURIComponent(f.path)}` })),
    ],
  };
  return {
    createJob: async () => job,
    events: async function* () {
      yield { event: "status", id: "completed.1", job };
    },
    getJob: async () => job,
    cancelJob: async () => job,
    getResult: async () => ({ ...job, outputs: [output], stdout: "", stderrTail: "", exitCode: 0 }),
    getPreset: async () => preset,
    uploadFile: async () => ({ id: "asset" }),
  } as unknown as FfjobsClient;
}

const quiet = { stdout: { write: () => true }, stderr: { write: () => true } } as unknown as Parameters<
  typeof runRemote
>[2];

describe("names from the server", () => {
  it("are plain file names inside the user's folder, or an error naming them", () => {
    expect(fileInFolder("/home/u/out", "seg_001.ts", "x")).toBe("/home/u/out/seg_001.ts");
    // and, from the second attack pass (L4): dot files, a right-to-left override, an NTFS stream, device names.
    for (const name of [
      "../../victim.rc",
      "..",
      ".",
      "",
      "/etc/passwd",
      "sub/seg.ts",
      "..\\x",
      "a\u0000b",
      "line\nbreak",
      ".bashrc",
      ".bash_login",
      "seg\u202Esj.ts",
      "x:stream",
      "con",
      "NUL.txt",
      "lpt1.ts",
      "a b.ts",
    ]) {
      expect(() => fileInFolder("/home/u/out", name, "the output file"), JSON.stringify(name)).toThrow(UnsafeNameError);
    }
    expect(() => fileInFolder("/home/u/out", "../../victim.rc", "the output file")).toThrow(
      /refusing the output file "..\/..\/victim.rc"/,
    );
  });

  it("a directory output listing ../../victim.rc writes nothing outside the output folder, and no file at all", async () => {
    const root = mkdtempSync(join(tmpdir(), "cli-hostile-"));
    const outDir = join(root, "a", "b");
    mkdirSync(outDir, { recursive: true });
    writeFileSync(join(root, "victim.rc"), "untouched");
    const cmd = toRemoteCommand("ffmpeg", [
      "-i",
      "https://media.example/in.mp4",
      "-f",
      "hls",
      join(outDir, "main.m3u8"),
    ]);
    await expect(
      runRemote(hostileClient([{ path: "seg0.ts" }, { path: "../../victim.rc" }]), cmd, quiet),
    ).rejects.toThrow(/refusing the output file "..\/..\/victim.rc"/);
    expect(readFileSync(join(root, "victim.rc"), "utf8")).toBe("untouched");
    expect(existsSync(join(outDir, "seg0.ts"))).toBe(false);
  });

  it("an image-sequence output writes every file under its own plain name in the pattern's folder, and nothing for a path", async () => {
    const outDir = mkdtempSync(join(tmpdir(), "cli-pattern-"));
    const cmd = toRemoteCommand("ffmpeg", ["-i", "https://media.example/in.mp4", join(outDir, "img%03d.png")]);
    expect(await runRemote(hostileClient([{ path: "img002.png" }]), cmd, quiet)).toBe(0);
    expect(readdirSync(outDir).sort()).toEqual(["img002.png", "main.m3u8"]);
    const other = mkdtempSync(join(tmpdir(), "cli-pattern-"));
    const again = toRemoteCommand("ffmpeg", ["-i", "https://media.example/in.mp4", join(other, "img%03d.png")]);
    await expect(
      runRemote(hostileClient([{ path: "img001.png" }, { path: "../img002.png" }]), again, quiet),
    ).rejects.toThrow(/refusing the output file/);
    expect(readdirSync(other)).toEqual([]);
  });

  it("a directory output's file that exists already is replaced only with -y", async () => {
    const outDir = mkdtempSync(join(tmpdir(), "cli-exists-"));
    writeFileSync(join(outDir, "seg0.ts"), "mine");
    const cmd = toRemoteCommand("ffmpeg", [
      "-i",
      "https://media.example/in.mp4",
      "-f",
      "hls",
      join(outDir, "main.m3u8"),
    ]);
    expect(await runRemote(hostileClient([{ path: "seg0.ts" }]), cmd, quiet)).toBe(1);
    expect(readFileSync(join(outDir, "seg0.ts"), "utf8")).toBe("mine");
    const forced = toRemoteCommand("ffmpeg", [
      "-y",
      "-i",
      "https://media.example/in.mp4",
      "-f",
      "hls",
      join(outDir, "main.m3u8"),
    ]);
    expect(await runRemote(hostileClient([{ path: "seg0.ts" }]), forced, quiet)).toBe(0);
    expect(readFileSync(join(outDir, "seg0.ts"), "utf8")).toBe("served /seg0.ts");
  });

  it("`ffjobs run` without -o refuses a preset output name that is a path", async () => {
    const root = mkdtempSync(join(tmpdir(), "cli-preset-"));
    const cwd = process.cwd();
    process.chdir(mkdtempSync(join(root, "work-")));
    try {
      for (const fileName of ["../../.profile-x", join(root, "absolute.txt")]) {
        const preset = { inputs: ["video"], outputs: { out: { fileName } } };
        await expect(
          runPreset(hostileClient([], preset), ["thumbnail", "-i", "https://media.example/in.mp4"]),
        ).rejects.toThrow(/refusing preset thumbnail's output name/);
      }
      expect(existsSync(join(root, ".profile-x"))).toBe(false);
      expect(existsSync(join(root, "absolute.txt"))).toBe(false);
    } finally {
      process.chdir(cwd);
    }
  });
});

describe("downloads", () => {
  it("never follow a link planted at the target: the link itself is replaced, what it points to is untouched", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cli-link-"));
    writeFileSync(join(dir, "victim"), "untouched");
    symlinkSync(join(dir, "victim"), join(dir, "out.mp4"));
    // Where the CLI used to write its partial download, predictably.
    symlinkSync(join(dir, "victim"), join(dir, "out.mp4.ffjobs-partial"));
    await downloadTo(`${base}/out.mp4`, join(dir, "out.mp4"));
    expect(readFileSync(join(dir, "victim"), "utf8")).toBe("untouched");
    expect(lstatSync(join(dir, "out.mp4")).isSymbolicLink()).toBe(false);
    expect(readFileSync(join(dir, "out.mp4"), "utf8")).toBe("served /out.mp4");
  });
});

describe("the command's wait for its job", () => {
  it("ends when the job has ended, even if the event stream stays open with nothing on it", async () => {
    const running = { id: "j", status: "running", progress: null } as unknown as Job;
    const done = { ...running, status: "completed" } as unknown as Job;
    let reads = 0;
    const client = {
      createJob: async () => running,
      // One event, then a stream that stays open until it is let go.
      events: async function* (_id: string, opts: { signal: AbortSignal }) {
        yield { event: "status", id: "running.1", job: running };
        await new Promise((_, reject) => opts.signal.addEventListener("abort", () => reject(new Error("aborted"))));
      },
      getJob: async () => (++reads >= 2 ? done : running),
      cancelJob: async () => done,
      getResult: async () => ({ ...done, outputs: [], stdout: "", stderrTail: "", exitCode: 0 }),
      uploadFile: async () => ({ id: "asset" }),
    } as unknown as FfjobsClient;
    const cmd = toRemoteCommand("ffprobe", ["https://media.example/in.mp4"]);
    const started = Date.now();
    expect(await runRemote(client, cmd, quiet, undefined, 20)).toBe(0);
    expect(reads).toBeGreaterThanOrEqual(2);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
