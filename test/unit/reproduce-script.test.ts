import { execFile, execFileSync } from "node:child_process";
import { createServer } from "node:http";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { reproduceScript, shellWord } from "../../src/jobs/views/reproduce-script.ts";
import type { JobSpec } from "../../src/jobs/request/job-request.ts";

const job = {
  id: "5b1d0c1e-8f7a-4c64-9d2b-2f0f6a3c9e11",
  status: "completed",
  createdAt: "2026-11-25T07:00:00.000Z",
  plannedArgs: null,
};
const spec: JobSpec = {
  binary: "ffmpeg",
  webhookUrl: null,
  args: [
    "-ss",
    "{{video@50%}}",
    "-i",
    "{{video}}",
    "-vf",
    "drawtext=text='it''s':fontsize=20",
    "-f",
    "hls",
    "-hls_segment_filename",
    "{{hls/seg_%03d.ts}}",
    "{{hls}}",
  ],
  inputs: { video: { type: "url", url: "https://media.example.org/a b.mp4?sig=x&y='1'" } },
  outputs: { hls: { fileName: "index.m3u8", contentType: "application/vnd.apple.mpegurl", kind: "directory" } },
};
const inputs = [
  { name: "video", url: "https://media.example.org/a b.mp4?sig=x&y='1'", fileName: "/a b.mp4", trusted: false },
];

describe("the reproduce script", () => {
  const script = reproduceScript(job, spec, inputs, "2026-11-25T13:00:00.000Z");

  it("is valid POSIX sh that fetches the inputs, makes the folders and runs the command as resolved", () => {
    execFileSync("sh", ["-n"], { input: script });
    expect(script).toContain("mkdir -p in out work ./out/hls\n");
    expect(script).toContain(
      `curl -fsSLg --proto =http,https --proto-redir =http,https -o ./in/video.mp4 'https://media.example.org/a b.mp4?sig=x&y='\\''1'\\'''`,
    );
    expect(script).toContain(
      `ffmpeg -hide_banner -nostdin -y -ss "$(at_percent ./in/video.mp4 50)" -i ./in/video.mp4 -vf 'drawtext=text='\\''it'\\'''\\''s'\\'':fontsize=20' -f hls -hls_segment_filename ./out/hls/seg_%03d.ts ./out/hls/index.m3u8\n`,
    );
  });

  it("works out {{input@P%}} as the runner does", () => {
    const atPercent = script.split("\n").find((l) => l.startsWith("at_percent()"))!;
    const seconds = execFileSync(
      "sh",
      ["-c", `${atPercent}\nffprobe() { echo 3.0; }\nat_percent x 50; echo; at_percent x 33`],
      { encoding: "utf8" },
    );
    // The runner: floor(3.0 × 50 × 10) / 1000 = 1.500, floor(3.0 × 33 × 10) / 1000 = 0.990.
    expect(seconds.trim().split("\n")).toEqual(["1.500", "0.990"]);
  });

  it("quotes any word so the shell reads it back unchanged", () => {
    for (const word of ["plain", "with space", "it's", "$(rm -rf ~)", "`x`", "a\nb", "", "*"]) {
      expect(execFileSync("sh", ["-c", `printf %s ${shellWord(word)}`], { encoding: "utf8" })).toBe(word);
    }
  });

  it("fetches a URL with glob characters once, as written: curl's [1-4] and {a,b} ranges are off", async () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(req.url!);
      res.end("media");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const dir = mkdtempSync(join(tmpdir(), "ffjobs-glob-"));
    try {
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v.mp4?v=[1-4]&w={a,b}`;
      const curl = reproduceScript(
        job,
        { ...spec, inputs: { video: { type: "url", url } } },
        [{ ...inputs[0], url }],
        "2026-11-25T13:00:00.000Z",
      )
        .split("\n")
        .find((l) => l.startsWith("curl "))!;
      // Not execFileSync: this process's server must answer while curl runs.
      await promisify(execFile)("sh", ["-c", `mkdir -p in && ${curl}`], { cwd: dir });
      expect(seen).toEqual(["/v.mp4?v=[1-4]&w={a,b}"]);
      expect(readFileSync(join(dir, "in/video.mp4"), "utf8")).toBe("media");
    } finally {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
