import { execFileSync, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { useLocalStack } from "../support/local-stack.ts";
import { ffprobeJson } from "../support/media-fixtures.ts";

const { fx, local } = useLocalStack();
const ROOT = resolve(import.meta.dirname, "../..");
const CLI = join(ROOT, "cli/src/main.ts");
const BIN = join(ROOT, "cli/bin/ffjobs.mjs");
/** A CLI run still going after this is stopped and reported with the stack's logs, before the test's own timeout hides both. */
const CLI_DEADLINE_MS = 45_000;
/** A test of four commands: each its own deadline, so one that hangs fails with the stack's logs. */
const FOUR_COMMANDS_MS = 4 * CLI_DEADLINE_MS + 20_000;

/** The first frame's MD5 as ffmpeg computes it: whether two videos' pictures differ. */
const frameHash = (file: string) =>
  execFileSync("ffmpeg", ["-v", "error", "-i", file, "-frames:v", "1", "-f", "md5", "-"], { encoding: "utf8" }).trim();

/** Runs `ffjobs …` as a user would, against the local stack; its exit code and what it printed. */
function ffjobs(
  args: string[],
  opts: {
    cwd?: string;
    env?: Record<string, string>;
    onStderr?: (text: string, kill: () => void) => void;
    via?: "bin" | "npm run";
    /** Past this the CLI is killed (CLI_DEADLINE_MS by default). */
    deadlineMs?: number;
  } = {},
) {
  // As installed (the package's bin), through `npm run ffjobs` from elsewhere, or the source itself.
  const [file, ...prefix] =
    opts.via === "bin"
      ? [process.execPath, BIN]
      : opts.via === "npm run"
        ? ["npm", "--prefix", ROOT, "run", "--silent", "ffjobs", "--"]
        : [process.execPath, CLI];
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
    const child = spawn(file, [...prefix, ...args], {
      cwd: opts.cwd,
      env: {
        ...process.env,
        FFJOBS_URL: local.stack.baseUrl,
        FFJOBS_API_KEY: local.stack.apiKey,
        FFJOBS_CONFIG: "/nonexistent",
        ...opts.env,
      },
    });
    let stdout = "";
    let stderr = "";
    let interrupted = false;
    const interrupt = () => {
      if (!interrupted) child.kill("SIGINT");
      interrupted = true;
    };
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => {
      stderr += c;
      opts.onStderr?.(stderr, interrupt);
    });
    const deadlineMs = opts.deadlineMs ?? CLI_DEADLINE_MS;
    const deadline = setTimeout(() => {
      stderr += `\n[test: ffjobs still running after ${deadlineMs} ms, killed; the stack's last logs:]\n`;
      stderr += local.stack.logs().slice(-6000);
      child.kill("SIGKILL");
    }, deadlineMs);
    child.on("exit", (code) => {
      clearTimeout(deadline);
      done({ code, stdout, stderr });
    });
  });
}

describe("the ffjobs CLI, end to end with real files", () => {
  it("runs a transcode with a local input and two outputs, writing them where ffmpeg would", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ffjobs-cli-"));
    const r = await ffjobs(
      [
        "ffmpeg",
        "-i",
        fx.clip,
        "-vf",
        "scale=160:-2",
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        "small.mp4",
        "-frames:v",
        "1",
        "thumb.png",
      ],
      { cwd: dir },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(ffprobeJson(join(dir, "small.mp4")).streams.find((s: any) => s.codec_type === "video")).toMatchObject({
      codec_name: "h264",
      width: 160,
    });
    // As with ffmpeg, -vf applied to the first output only.
    expect(ffprobeJson(join(dir, "thumb.png")).streams[0]).toMatchObject({ codec_name: "png", width: 320 });
    // An existing output is kept unless -y says otherwise, as with ffmpeg.
    const again = await ffjobs(["ffmpeg", "-i", fx.clip, "-frames:v", "1", "thumb.png"], { cwd: dir });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already exists/);
    expect((await ffjobs(["ffmpeg", "-y", "-i", fx.clip, "-frames:v", "1", "thumb.png"], { cwd: dir })).code).toBe(0);
  });

  it("reads options it does not know as taking a value, sends -f null /dev/null nowhere, and brings an HLS output back whole", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ffjobs-cli-"));
    // An option the service does not allow: the CLI still parses it with its value, and the service says no.
    const refused = await ffjobs(["ffmpeg", "-i", fx.clip, "-c", "copy", "-vstats_file", "stats.log", "out.ts"], {
      cwd: dir,
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/-vstats_file is not allowed: writes a side file/);
    expect(existsSync(join(dir, "stats.log"))).toBe(false);
    const bsf = await ffjobs(
      ["ffmpeg", "-i", fx.clip, "-c", "copy", "-bsf:v", "h264_mp4toannexb", "-bsf:a", "aac_adtstoasc", "annexb.ts"],
      { cwd: dir },
    );
    expect(bsf.code, bsf.stderr).toBe(0);
    expect(
      ffprobeJson(join(dir, "annexb.ts"))
        .streams.map((st: any) => st.codec_name)
        .sort(),
    ).toEqual(["aac", "h264"]);
    const nullRun = await ffjobs(["ffmpeg", "-i", fx.clip, "-f", "null", "/dev/null"], { cwd: dir });
    expect(nullRun.code, nullRun.stderr).toBe(0);
    const hls = await ffjobs(
      [
        "ffmpeg",
        "-i",
        fx.clip,
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        "-g",
        "25",
        "-c:a",
        "aac",
        "-f",
        "hls",
        "-hls_time",
        "1",
        "-hls_playlist_type",
        "vod",
        "video.m3u8",
      ],
      { cwd: dir },
    );
    expect(hls.code, hls.stderr).toBe(0);
    expect(Number(ffprobeJson(join(dir, "video.m3u8")).format.duration)).toBeCloseTo(3, 0);
  });

  it("resolves paths from the user's folder, through the package's bin and through npm run", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ffjobs-cli-"));
    copyFileSync(fx.clip, join(dir, "holiday.mp4"));
    const viaBin = await ffjobs(["ffmpeg", "-i", "holiday.mp4", "-frames:v", "1", "poster.png"], {
      cwd: dir,
      via: "bin",
    });
    expect(viaBin.code, viaBin.stderr).toBe(0);
    expect(ffprobeJson(join(dir, "poster.png")).streams[0]).toMatchObject({ codec_name: "png", width: 320 });
    const viaNpm = await ffjobs(["ffmpeg", "-i", "holiday.mp4", "-frames:v", "1", "-vf", "scale=64:-2", "small.png"], {
      cwd: dir,
      via: "npm run",
    });
    expect(viaNpm.code, viaNpm.stderr).toBe(0);
    expect(ffprobeJson(join(dir, "small.png")).streams[0]).toMatchObject({ width: 64 });
    expect(existsSync(join(ROOT, "small.png"))).toBe(false);
  }, 60_000);

  it(
    "brings an image sequence back as its files, burns in a subtitle file named in -vf, and writes segments with their list",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "ffjobs-cli-"));
      copyFileSync(fx.subs, join(dir, "subs.srt"));
      const frames = await ffjobs(["ffmpeg", "-i", fx.clip, "-vf", "fps=2,scale=64:-2", "img%03d.png"], { cwd: dir });
      expect(frames.code, frames.stderr).toBe(0);
      const images = readdirSync(dir)
        .filter((f) => f.startsWith("img"))
        .sort();
      expect(images.slice(0, 6)).toEqual([
        "img001.png",
        "img002.png",
        "img003.png",
        "img004.png",
        "img005.png",
        "img006.png",
      ]);
      expect(ffprobeJson(join(dir, "img006.png")).streams[0]).toMatchObject({ codec_name: "png", width: 64 });
      const subbed = await ffjobs(
        [
          "ffmpeg",
          "-i",
          fx.clip,
          "-vf",
          "subtitles=subs.srt:force_style='Fontsize=30'",
          "-c:v",
          "libx264",
          "-preset",
          "ultrafast",
          "subbed.mp4",
        ],
        { cwd: dir },
      );
      expect(subbed.code, subbed.stderr).toBe(0);
      // The subtitle is drawn: the first second differs from the same frame without it.
      const plain = await ffjobs(["ffmpeg", "-i", fx.clip, "-c:v", "libx264", "-preset", "ultrafast", "plain.mp4"], {
        cwd: dir,
      });
      expect(plain.code).toBe(0);
      expect(frameHash(join(dir, "subbed.mp4"))).not.toBe(frameHash(join(dir, "plain.mp4")));
      const parts = await ffjobs(
        [
          "ffmpeg",
          "-i",
          fx.clip,
          "-c:v",
          "libx264",
          "-preset",
          "ultrafast",
          "-g",
          "25",
          "-c:a",
          "aac",
          "-f",
          "segment",
          "-segment_time",
          "1",
          "-segment_list",
          "parts.m3u8",
          "-reset_timestamps",
          "1",
          "part%02d.ts",
        ],
        { cwd: dir },
      );
      expect(parts.code, parts.stderr).toBe(0);
      expect(readdirSync(dir).filter((f) => /^part\d\d\.ts$/.test(f)).length).toBeGreaterThanOrEqual(3);
      expect(readFileSync(join(dir, "parts.m3u8"), "utf8")).toMatch(/part00\.ts/);
      expect(Number(ffprobeJson(join(dir, "parts.m3u8")).format.duration)).toBeCloseTo(3, 0);
    },
    FOUR_COMMANDS_MS,
  );

  it("uploads a file over 100 MiB in parts, with progress part by part, and probes it remotely", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ffjobs-cli-"));
    execFileSync("ffmpeg", ["-v", "error", "-stream_loop", "3", "-i", fx.long, "-c", "copy", join(dir, "big.mp4")]);
    const size = statSync(join(dir, "big.mp4")).size;
    expect(size).toBeGreaterThan(100 * 1024 * 1024);
    const r = await ffjobs(
      ["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", "big.mp4"],
      { cwd: dir },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(Number(r.stdout)).toBeCloseTo(480, 0);
    // Progress moves a 16 MiB part at a time (one PUT would report every chunk).
    const percents = [...r.stderr.matchAll(/uploading [^:]+: (\d+)%/g)].map((m) => Number(m[1]));
    expect(percents[0]).toBe(Math.floor(((16 * 1024 * 1024) / size) * 100));
    expect(percents.at(-1)).toBe(100);
  }, 120_000);

  it("prints what ffprobe prints", async () => {
    const r = await ffjobs(["ffprobe", "-v", "error", "-print_format", "json", "-show_streams", fx.clip]);
    expect(r.code, r.stderr).toBe(0);
    const remote = JSON.parse(r.stdout);
    expect(remote.streams.map((s: any) => s.codec_name)).toEqual(
      ffprobeJson(fx.clip).streams.map((s: any) => s.codec_name),
    );
  });

  it("exits with the remote command's code and prints its stderr tail when it fails", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ffjobs-cli-"));
    const r = await ffjobs(["ffmpeg", "-i", fx.clip, "-c:v", "no_such_codec", "out.mp4"], { cwd: dir });
    expect(r.code).not.toBe(0);
    expect(r.code).not.toBe(null);
    expect(r.stderr).toMatch(/no_such_codec/);
    expect(r.stderr).toMatch(/PROCESS_FAILED/);
    expect(existsSync(join(dir, "out.mp4"))).toBe(false);
    const missing = await ffjobs(["ffmpeg", "-i", join(dir, "nope.mp4"), "out.mp4"], { cwd: dir });
    expect(missing).toMatchObject({ code: 1, stderr: expect.stringMatching(/nope\.mp4: No such file or directory/) });
  });

  it("asks checks of every output (FFJOBS_CHECKS): a miss exits 3 with a one-line summary and writes nothing; report keeps it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ffjobs-cli-"));
    const cut = ["ffmpeg", "-i", fx.clip, "-t", "1", "-c", "copy", "short.mp4"];
    const checks = JSON.stringify({ durationSeconds: { equals: 3, toleranceSeconds: 0.2 } });
    const failed = await ffjobs(cut, { cwd: dir, env: { FFJOBS_CHECKS: checks } });
    expect(failed.code, failed.stderr).toBe(3);
    expect(failed.stderr).toMatch(
      /failed its output checks, nothing was kept: short\.mp4: durationSeconds \(lasts 1(\.\d+)? s; wanted 3 ± 0\.2 s\)\n/,
    );
    expect(existsSync(join(dir, "short.mp4"))).toBe(false);
    const reported = await ffjobs(cut, { cwd: dir, env: { FFJOBS_CHECKS: checks, FFJOBS_ON_FAILED_CHECK: "report" } });
    expect(reported.code, reported.stderr).toBe(0);
    expect(reported.stderr).toMatch(
      /output checks failed \(reported; the outputs are kept\): short\.mp4: durationSeconds/,
    );
    expect(existsSync(join(dir, "short.mp4"))).toBe(true);
    const malformed = await ffjobs(cut, { cwd: dir, env: { FFJOBS_CHECKS: "{not json" } });
    expect(malformed).toMatchObject({ code: 1, stderr: expect.stringMatching(/FFJOBS_CHECKS is not JSON/) });
  });

  it("cancels the remote job on Ctrl-C", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ffjobs-cli-"));
    const startedAfter = new Date().toISOString();
    let watching = false;
    let exited = false;
    // Ctrl-C once the remote job runs: when the CLI shows ffmpeg's progress line, or, should that not come
    // (CI twice saw none within 45 and 100 s on a loaded machine, noted for a look), when the API says the
    // job has run for 2 s. What is tested is what Ctrl-C does then.
    const whenRunning = async (kill: () => void) => {
      // Stops with the CLI: a loop left polling would outlive the test (and its stack).
      while (!exited) {
        const { body } = await local.api.call("GET", "/v1/jobs?status=running&limit=5");
        const mine = ((body?.data ?? []) as { createdAt: string; startedAt: string | null }[]).find(
          (j) => j.createdAt >= startedAfter && j.startedAt && Date.now() - Date.parse(j.startedAt) > 2000,
        );
        if (mine) return kill();
        await new Promise((r) => setTimeout(r, 250));
      }
    };
    const r = await ffjobs(["ffmpeg", "-re", "-i", fx.long, "-f", "null", "-"], {
      cwd: dir,
      onStderr: (text, kill) => {
        if (text.includes("time=")) kill();
        else if (!watching && text.includes("100%")) {
          watching = true;
          void whenRunning(kill).catch(() => {});
        }
      },
      deadlineMs: 100_000,
    });
    exited = true;
    // On a miss, what the CLI printed (and, past the deadline, the stack's last logs) says where it stood.
    expect(r.code, r.stderr).toBe(255);
    const id = /remote job ([0-9a-f-]{36}) was canceled/.exec(r.stderr)?.[1];
    expect(id, r.stderr).toBeDefined();
    expect((await local.api.call("GET", `/v1/jobs/${id}`)).body.status).toBe("canceled");
  }, 120_000);

  it("says what to set when the service is not configured, and runs presets", async () => {
    const r = await ffjobs(["jobs", "list"], { env: { FFJOBS_URL: "", FFJOBS_API_KEY: "" } });
    expect(r).toMatchObject({ code: 1, stderr: expect.stringMatching(/set FFJOBS_URL and FFJOBS_API_KEY/) });
    // Help needs no service.
    const help = await ffjobs(["run", "--help"], { env: { FFJOBS_URL: "", FFJOBS_API_KEY: "" } });
    expect(help).toMatchObject({ code: 0, stdout: expect.stringMatching(/usage: ffjobs run <preset>/) });
    expect(help.stderr).not.toMatch(/FFJOBS_URL/);
    const dir = mkdtempSync(join(tmpdir(), "ffjobs-cli-"));
    writeFileSync(join(dir, "config.json"), JSON.stringify({ url: local.stack.baseUrl, apiKey: local.stack.apiKey }));
    const preset = await ffjobs(["run", "thumbnail", "--param", "width=96", "-i", fx.clip, "-o", "t.jpg"], {
      cwd: dir,
      env: { FFJOBS_URL: "", FFJOBS_API_KEY: "", FFJOBS_CONFIG: join(dir, "config.json") },
    });
    expect(preset.code, preset.stderr).toBe(0);
    expect(ffprobeJson(join(dir, "t.jpg")).streams[0]).toMatchObject({ width: 96 });
    // A ladder's -o names a folder: the master playlist and every playlist and segment inside it.
    const ladder = await ffjobs(
      ["run", "hls-ladder", "--param", "renditions=[144]", "--param", "segmentSeconds=1", "-i", fx.clip, "-o", "out"],
      { cwd: dir, env: { FFJOBS_URL: "", FFJOBS_API_KEY: "", FFJOBS_CONFIG: join(dir, "config.json") } },
    );
    expect(ladder.code, ladder.stderr).toBe(0);
    const stored = readdirSync(join(dir, "out"));
    expect(stored).toEqual(expect.arrayContaining(["master.m3u8", "stream_0.m3u8"]));
    expect(stored.some((f) => f.endsWith(".ts"))).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(["config.json", "out", "t.jpg"]);
    expect(ffprobeJson(join(dir, "out", "master.m3u8")).streams.length).toBeGreaterThan(0);
    const list = await ffjobs(["presets"]);
    expect(list.stdout).toMatch(/hls-ladder/);
  });
});
