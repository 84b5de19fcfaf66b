import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runProcess } from "../../container/src/run-process.ts";
import { sandboxedCommand } from "../../container/src/sandbox.ts";
import { freePort } from "../support/free-port.ts";
import { startRunner } from "../support/runner-process.ts";
import { jobRequest, runnerApi } from "./runner-api.ts";
import { useRunnerHarness } from "./runner-harness.ts";

const CANARY = `canary-${crypto.randomUUID()}`;
const MAX_OUTPUT_BYTES = 300_000;
const workDir = join(tmpdir(), `ffjobs-attack-${process.pid}`);
// The canary stands for any secret in the runner's environment: nothing ffmpeg produces may contain it.
const { h, fx, input, output } = useRunnerHarness({
  FFJOBS_CANARY_SECRET: CANARY,
  RUNNER_WORK_DIR: workDir,
  RUNNER_MAX_OUTPUT_BYTES: String(MAX_OUTPUT_BYTES),
});

async function run(over: Parameters<typeof jobRequest>[0]) {
  const req = jobRequest(over);
  await h.api.submit(req);
  return (await h.api.waitFor(req.jobId, (s) => s.state === "finished")).outcome!;
}

function expectNoLeak(outcome: { stdout: string; stderrTail: string; errorMessage: string | null }) {
  const all = `${outcome.stdout}\n${outcome.stderrTail}\n${outcome.errorMessage}`;
  expect(all).not.toContain(CANARY);
  expect(all).not.toMatch(/root:x:0:0/);
  expect(all).not.toContain(workDir);
}

describe("contained by the runner (policy, injected options, limits)", () => {
  it("an HLS playlist disguised as an MP4 upload cannot pull local files", async () => {
    const outcome = await run({
      args: ["-i", "{{in}}", "-c", "copy", "{{out}}"],
      inputs: [input("in", "playlist.mp4")],
      outputs: [output("out", "o.mp4")],
    });
    expect(outcome).toMatchObject({ status: "failed", errorCode: "PROCESS_FAILED" });
    expect(outcome.stderrTail).toMatch(/not on whitelist/i);
    expectNoLeak(outcome);
  });

  it("a DASH manifest disguised as an MP4 upload cannot pull local files", async () => {
    const outcome = await run({
      binary: "ffprobe",
      args: ["-show_format", "{{in}}"],
      inputs: [input("in", "manifest.mp4")],
    });
    expect(outcome.status).toBe("failed");
    expect(outcome.stdout).not.toContain("format_name=dash");
    expectNoLeak(outcome);
  });

  it("a decompression-bomb PNG is refused by the pixel limit", async () => {
    const outcome = await run({
      args: ["-i", "{{in}}", "-vf", "scale=64:64", "{{out}}"],
      inputs: [input("in", "bomb.png")],
      outputs: [output("out", "small.png")],
    });
    expect(outcome).toMatchObject({ status: "failed", errorCode: "PROCESS_FAILED" });
    expect(outcome.errorMessage).toMatch(/max pixel count/);
  });

  it("an unbounded generated stream is refused; an hour-long one is cut at the output size limit", async () => {
    const endless = await run({
      args: ["-filter_complex", "testsrc2=s=640x480:r=30", "-c:v", "rawvideo", "-f", "rawvideo", "{{out}}"],
      outputs: [output("out", "huge.raw")],
    });
    expect(endless).toMatchObject({ status: "failed", errorCode: "ARGUMENTS_REFUSED", runtimeMs: 0 });
    const outcome = await run({
      args: ["-filter_complex", "testsrc2=s=640x480:r=30:d=3600", "-c:v", "rawvideo", "-f", "rawvideo", "{{out}}"],
      outputs: [output("out", "huge.raw")],
    });
    expect(outcome).toMatchObject({ status: "failed", errorCode: "LIMIT_EXCEEDED" });
    expect(outcome.errorMessage).toMatch(/300000-byte limit/);
  });

  it("an hour-long stream with no output is stopped by the time limit", async () => {
    const outcome = await run({
      timeoutMs: 1500,
      args: ["-filter_complex", "testsrc2=s=1280x720:r=30:d=3600", "-f", "null", "-"],
    });
    expect(outcome).toMatchObject({ status: "failed", errorCode: "JOB_TIMEOUT" });
  });

  it("re-checks the argument policy itself: a command that skipped the API is refused, nothing runs", async () => {
    for (const args of [
      ["-i", "/etc/passwd", "{{out}}"],
      ["-i", "{{in}}", "-vf", "movie=/etc/passwd", "{{out}}"],
      ["-f", "data", "-i", "{{in}}", "{{out}}"],
    ]) {
      const outcome = await run({ args, inputs: [input("in", "clip.mp4")], outputs: [output("out", "o.bin")] });
      expect(outcome, JSON.stringify(args)).toMatchObject({
        status: "failed",
        errorCode: "ARGUMENTS_REFUSED",
        runtimeMs: 0,
      });
    }
  });

  it("failure messages and stderr carry neither runner paths nor environment", async () => {
    const outcome = await run({
      args: ["-i", "{{in}}", "-c:v", "nope", "{{out}}"],
      inputs: [input("in", "clip.mp4")],
      outputs: [output("out", "o.mp4")],
    });
    expect(outcome.errorCode).toBe("PROCESS_FAILED");
    expect(outcome.stderrTail).toContain("/job/in/in.mp4");
    expectNoLeak(outcome);
  });
});

describe("the sandbox itself (as if the policy had a hole)", () => {
  const jobDir = join(tmpdir(), `ffjobs-sandbox-${process.pid}`);
  const limits = {
    cpuSeconds: 30,
    addressSpaceBytes: 4 * 1024 ** 3,
    fileSizeBytes: 50_000_000,
    openFiles: 256,
    processes: 512,
  };
  beforeAll(() => {
    mkdirSync(join(jobDir, "in"), { recursive: true });
    mkdirSync(join(jobDir, "out"), { recursive: true });
    mkdirSync(join(jobDir, "work"), { recursive: true });
    writeFileSync(join(jobDir, "in", "a.mp4"), readFileSync(fx.clip));
  });
  afterAll(() => rmSync(jobDir, { recursive: true, force: true }));

  const sandboxed = async (argv: string[]) => {
    const cmd = sandboxedCommand(
      "ffmpeg",
      ["-hide_banner", "-nostdin", "-y", ...argv],
      jobDir,
      limits,
      "/usr/bin/bwrap",
    );
    return runProcess({
      file: cmd.file,
      args: cmd.args,
      cwd: jobDir,
      env: { FFJOBS_CANARY_SECRET: CANARY },
      timeoutMs: 20_000,
      maxStdoutBytes: 65536,
      maxStderrBytes: 65536,
    }).done;
  };

  it("has no network: ffmpeg cannot reach a loopback server", async () => {
    let connections = 0;
    const server = http.createServer((_q, s) => s.end("x"));
    server.on("connection", () => connections++);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    for (const target of [
      `http://127.0.0.1:${port}/x.mp4`,
      `tcp://127.0.0.1:${port}`,
      `http://localhost:${port}/x.mp4`,
    ]) {
      const r = await sandboxed(["-i", target, "-t", "1", "-f", "null", "-"]);
      expect(r.exitCode, target).not.toBe(0);
    }
    server.close();
    expect(connections).toBe(0);
  });

  it("sees no host files and an empty environment", async () => {
    expect(
      (await sandboxed(["-f", "data", "-i", "/etc/passwd", "-map", "0", "-c", "copy", "-f", "data", "/job/out/passwd"]))
        .exitCode,
    ).not.toBe(0);
    const env = await sandboxed([
      "-f",
      "data",
      "-i",
      "/proc/self/environ",
      "-map",
      "0",
      "-c",
      "copy",
      "-f",
      "data",
      "/job/out/environ",
    ]);
    const leaked = existsSync(join(jobDir, "out", "environ"))
      ? readFileSync(join(jobDir, "out", "environ"), "utf8")
      : "";
    expect(env.exitCode).toBe(0);
    expect(leaked).not.toContain(CANARY);
    expect(leaked).not.toMatch(/R2_|SECRET|KEY=/);
  });

  it("writes nowhere but the job's out and work folders: inputs are read-only, /tmp and /job vanish, /usr is read-only", async () => {
    const marker = `escape-${crypto.randomUUID()}`;
    for (const target of [`/tmp/${marker}.mp4`, `/job/${marker}.mp4`, `/job/in/${marker}.mp4`, `/usr/${marker}.mp4`]) {
      await sandboxed(["-i", "/job/in/a.mp4", "-t", "0.5", target]);
    }
    expect(existsSync(join(tmpdir(), `${marker}.mp4`))).toBe(false);
    expect(existsSync(join(jobDir, `${marker}.mp4`))).toBe(false);
    expect(existsSync(join(jobDir, "in", `${marker}.mp4`))).toBe(false);
    expect(existsSync(`/usr/${marker}.mp4`)).toBe(false);
    const ok = await sandboxed(["-i", "/job/in/a.mp4", "-t", "0.5", `/job/out/${marker}.mp4`]);
    expect(ok.exitCode).toBe(0);
    expect(existsSync(join(jobDir, "out", `${marker}.mp4`))).toBe(true);
    // The working directory is the job's work folder (two-pass logs, scratch files), kept on the host.
    expect((await sandboxed(["-i", "/job/in/a.mp4", "-t", "0.5", `${marker}.mkv`])).exitCode).toBe(0);
    expect(existsSync(join(jobDir, "work", `${marker}.mkv`))).toBe(true);
  });
});

describe("fails closed", () => {
  it("refuses every job, loudly, when the sandbox cannot start", async () => {
    const broken = await startRunner(await freePort(), { RUNNER_BWRAP_PATH: "/nonexistent/bwrap" });
    try {
      expect(await (await fetch(`${broken.url}/healthz`)).json()).toMatchObject({ ok: false, sandbox: "unavailable" });
      expect(broken.logs()).toMatch(/refusing every job/);
      const req = jobRequest({
        binary: "ffprobe",
        args: ["-show_format", "{{in}}"],
        inputs: [input("in", "clip.mp4")],
      });
      const brokenApi = runnerApi(broken);
      await brokenApi.submit(req);
      const done = await brokenApi.waitFor(req.jobId, (s) => s.state === "finished");
      expect(done.outcome).toMatchObject({ status: "failed", errorCode: "SANDBOX_UNAVAILABLE", runtimeMs: 0 });
    } finally {
      broken.stop();
    }
  });

  it("never uses the uid fallback outside the runner's image (it would change the machine's /tmp)", async () => {
    const forced = await startRunner(await freePort(), { RUNNER_SANDBOX: "uid" });
    try {
      expect(await (await fetch(`${forced.url}/healthz`)).json()).toMatchObject({ ok: false, sandbox: "unavailable" });
      expect(forced.logs()).toMatch(/uid fallback: not enabled here/);
    } finally {
      forced.stop();
    }
  });

  it("runs without the sandbox only when told to, and says so", async () => {
    const unsandboxed = await startRunner(await freePort(), { RUNNER_SANDBOX: "off" });
    try {
      expect(await (await fetch(`${unsandboxed.url}/healthz`)).json()).toMatchObject({ ok: true, sandbox: "off" });
      expect(unsandboxed.logs()).toMatch(/WITHOUT the sandbox/);
    } finally {
      unsandboxed.stop();
    }
  });
});
