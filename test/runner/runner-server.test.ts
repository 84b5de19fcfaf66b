import { execFileSync, spawnSync } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { jobRequest, runnerApi } from "./runner-api.ts";
import { useRunnerHarness } from "./runner-harness.ts";
import { startRunner } from "../support/runner-process.ts";
import { freePort } from "../support/free-port.ts";

const workDir = join(tmpdir(), `ffjobs-runner-test-${process.pid}`);
const { h, input } = useRunnerHarness({ RUNNER_CONCURRENCY: "1", RUNNER_WORK_DIR: workDir });

describe("runner server (real ffmpeg)", () => {
  it("reports health and its concurrency", async () => {
    expect(await (await fetch(`${h.runner.url}/healthz`)).json()).toEqual({
      ok: true,
      active: 0,
      concurrency: 1,
      sandbox: "namespaces",
    });
  });

  it("transcodes, uploads the declared output with its type, probes it, and cleans the job folder", async () => {
    const req = jobRequest({
      args: [
        "-i",
        "{{src}}",
        "-vf",
        "scale=160:-2",
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        "-c:a",
        "aac",
        "{{out}}",
      ],
      inputs: [input("src", "clip.mp4")],
      outputs: [
        { name: "out", fileName: "small.mp4", contentType: "video/mp4", uploadUrl: `${h.storage.url}/small.mp4` },
      ],
    });
    expect((await h.api.submit(req)).status).toBe(202);
    const done = await h.api.waitFor(req.jobId, (s) => s.state === "finished");
    expect(done.outcome).toMatchObject({ status: "completed", exitCode: 0, errorCode: null });
    expect(done.outcome!.runtimeMs).toBeGreaterThan(0);
    const stored = h.storage.received.get("/small.mp4")!;
    expect(stored.contentType).toBe("video/mp4");
    const path = join(tmpdir(), `ffjobs-out-${req.jobId}.mp4`);
    writeFileSync(path, stored.body);
    const probed = JSON.parse(
      execFileSync("ffprobe", ["-v", "error", "-print_format", "json", "-show_streams", path], { encoding: "utf8" }),
    );
    expect(probed.streams.find((s: { codec_type: string }) => s.codec_type === "video").width).toBe(160);
    expect(done.outcome!.outputs[0]).toMatchObject({
      name: "out",
      size: stored.body.length,
      metadata: { streams: expect.any(Array) },
    });
    // Removed just after the report (which does not wait for the clean-up), before the slot is free.
    for (let i = 0; i < 100 && readdirSync(workDir).includes(req.jobId); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(readdirSync(workDir)).not.toContain(req.jobId);
  });

  it("returns ffprobe's JSON on stdout with service paths hidden", async () => {
    const req = jobRequest({
      binary: "ffprobe",
      args: ["-v", "error", "-print_format", "json", "-show_format", "{{in}}"],
      inputs: [input("in", "clip.mp4")],
    });
    await h.api.submit(req);
    const done = await h.api.waitFor(req.jobId, (s) => s.state === "finished");
    const probe = JSON.parse(done.outcome!.stdout);
    expect(probe.format.filename).toBe("/job/in/in.mp4");
    expect(done.outcome!.stdout).not.toContain(workDir);
  });

  it("turns a non-zero exit into PROCESS_FAILED with ffmpeg's reason", async () => {
    const req = jobRequest({
      args: ["-i", "{{in}}", "-c:v", "no_such_codec", "{{out}}"],
      inputs: [input("in", "clip.mp4")],
      outputs: [{ name: "out", fileName: "o.mp4", contentType: "video/mp4", uploadUrl: `${h.storage.url}/o.mp4` }],
    });
    await h.api.submit(req);
    const done = await h.api.waitFor(req.jobId, (s) => s.state === "finished");
    expect(done.outcome).toMatchObject({ status: "failed", errorCode: "PROCESS_FAILED" });
    expect(done.outcome!.exitCode).not.toBe(0);
    expect(done.outcome!.errorMessage).toMatch(/ffmpeg exited with code \d+: .*no_such_codec/i);
    expect(done.outcome!.stderrTail).not.toContain(workDir);
  });

  it("reports OUTPUT_MISSING when the command wrote no declared output", async () => {
    const req = jobRequest({
      args: ["-i", "{{in}}", "-f", "null", "{{out}}"],
      inputs: [input("in", "clip.mp4")],
      outputs: [{ name: "out", fileName: "o.mp4", contentType: "video/mp4", uploadUrl: `${h.storage.url}/never.mp4` }],
    });
    await h.api.submit(req);
    const done = await h.api.waitFor(req.jobId, (s) => s.state === "finished");
    expect(done.outcome).toMatchObject({ status: "failed", errorCode: "OUTPUT_MISSING", exitCode: 0 });
    expect(h.storage.received.has("/never.mp4")).toBe(false);
  });

  it("reports OUTPUT_UPLOAD_FAILED when storage refuses the output", async () => {
    const req = jobRequest({
      args: ["-i", "{{in}}", "-t", "1", "{{out}}"],
      inputs: [input("in", "tone.wav")],
      outputs: [{ name: "out", fileName: "o.wav", contentType: "audio/wav", uploadUrl: `${h.storage.url}/fail` }],
    });
    await h.api.submit(req);
    const done = await h.api.waitFor(req.jobId, (s) => s.state === "finished");
    expect(done.outcome).toMatchObject({ status: "failed", errorCode: "OUTPUT_UPLOAD_FAILED" });
  });

  it("cancels a job while it stores its outputs: the upload stops and the job ends canceled, charged for its run", async () => {
    const req = jobRequest({
      args: ["-i", "{{in}}", "-t", "1", "{{out}}"],
      inputs: [input("in", "tone.wav")],
      outputs: [{ name: "out", fileName: "o.wav", contentType: "audio/wav", uploadUrl: `${h.storage.url}/slow/o.wav` }],
    });
    await h.api.submit(req);
    await h.api.waitFor(req.jobId, (s) => s.state === "uploading");
    const started = Date.now();
    const canceled = await h.api.cancel(req.jobId);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(canceled.outcome).toMatchObject({ status: "canceled", errorCode: "CANCELED", outputs: [] });
    expect(canceled.outcome!.runtimeMs).toBeGreaterThan(0);
  });

  it("fails inputs that answer an HTTP error with INPUT_FETCH_FAILED", async () => {
    const req = jobRequest({
      binary: "ffprobe",
      args: ["{{in}}"],
      inputs: [{ name: "in", url: `${h.media.url}/status/404`, fileName: "x", trusted: false }],
    });
    await h.api.submit(req);
    const done = await h.api.waitFor(req.jobId, (s) => s.state === "finished");
    expect(done.outcome).toMatchObject({ status: "failed", errorCode: "INPUT_FETCH_FAILED", runtimeMs: 0 });
    expect(done.outcome!.errorMessage).toBe('Input "in" could not be fetched: HTTP 404');
  });

  it("refuses loopback inputs in every spelling unless the host is allowed", async () => {
    const port = new URL(h.media.url).port;
    const spellings = [
      `127.0.0.1:${port}`,
      `127.1:${port}`,
      `2130706433:${port}`,
      `0x7f000001:${port}`,
      `[::1]:${port}`,
      `[::ffff:127.0.0.1]:${port}`,
      `localhost:${port}`,
    ];
    for (const hostPort of spellings) {
      const req = jobRequest({
        binary: "ffprobe",
        args: ["{{in}}"],
        allowedPrivateHosts: [],
        inputs: [{ name: "in", url: `http://${hostPort}/clip.mp4`, fileName: "clip.mp4", trusted: false }],
      });
      await h.api.submit(req);
      const done = await h.api.waitFor(req.jobId, (s) => s.state === "finished");
      expect(done.outcome?.errorCode, hostPort).toBe("INPUT_FETCH_FAILED");
      expect(done.outcome?.errorMessage, hostPort).toMatch(/not publicly routable/);
    }
  });

  it("re-checks every redirect hop", async () => {
    const port = new URL(h.media.url).port;
    const req = jobRequest({
      binary: "ffprobe",
      args: ["{{in}}"],
      allowedPrivateHosts: ["127.0.0.1"],
      inputs: [
        {
          name: "in",
          url: `${h.media.url}/redirect?to=${encodeURIComponent(`http://127.0.0.2:${port}/clip.mp4`)}`,
          fileName: "x",
          trusted: false,
        },
      ],
    });
    await h.api.submit(req);
    const done = await h.api.waitFor(req.jobId, (s) => s.state === "finished");
    expect(done.outcome?.errorMessage).toMatch(/not publicly routable/);
  });

  it("runs a job id once even when submitted twice", async () => {
    const req = jobRequest({
      binary: "ffprobe",
      args: ["-v", "error", "-show_format", "{{in}}"],
      inputs: [input("in", "clip.mp4")],
    });
    const first = (await (await h.api.submit(req)).json()) as { jobId: string };
    const second = (await (await h.api.submit({ ...req, args: ["-version"] })).json()) as { jobId: string };
    expect(second.jobId).toBe(first.jobId);
    const done = await h.api.waitFor(req.jobId, (s) => s.state === "finished");
    expect(done.outcome!.stdout).toContain("[FORMAT]");
  });

  it("cancels a running job by killing its process group and reports the time it ran", async () => {
    const req = jobRequest({
      args: ["-re", "-i", "{{in}}", "-c:v", "libx264", "-preset", "veryslow", "{{out}}"],
      inputs: [input("in", "long.mp4")],
      outputs: [
        { name: "out", fileName: "o.mp4", contentType: "video/mp4", uploadUrl: `${h.storage.url}/canceled.mp4` },
      ],
    });
    await h.api.submit(req);
    await h.api.waitFor(req.jobId, (s) => s.state === "running" && s.progress !== null);
    await new Promise((r) => setTimeout(r, 1200));
    const canceled = await h.api.cancel(req.jobId);
    expect(canceled.outcome).toMatchObject({ status: "canceled", errorCode: "CANCELED" });
    expect(canceled.outcome!.runtimeMs).toBeGreaterThanOrEqual(1000);
    expect(h.storage.received.has("/canceled.mp4")).toBe(false);
    const leftover = spawnSync("pgrep", ["-f", `ffmpeg .*${req.jobId}`], { encoding: "utf8" });
    expect(leftover.stdout.trim()).toBe("");
  });

  it("cancels a job while it is still downloading an input, without waiting for the download", async () => {
    const req = jobRequest({
      binary: "ffprobe",
      args: ["{{in}}"],
      inputs: [{ name: "in", url: `${h.media.url}/trickle`, fileName: "x.mp4", trusted: false }],
    });
    await h.api.submit(req);
    await h.api.waitFor(req.jobId, (s) => s.state === "fetching");
    const started = Date.now();
    const canceled = await h.api.cancel(req.jobId);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(canceled.outcome).toMatchObject({ status: "canceled", errorCode: "CANCELED", runtimeMs: 0 });
  });

  it("enforces the wall clock with JOB_TIMEOUT", async () => {
    const req = jobRequest({
      timeoutMs: 1500,
      args: ["-re", "-i", "{{in}}", "-f", "null", "-"],
      inputs: [input("in", "long.mp4")],
    });
    await h.api.submit(req);
    const done = await h.api.waitFor(req.jobId, (s) => s.state === "finished");
    expect(done.outcome).toMatchObject({ status: "failed", errorCode: "JOB_TIMEOUT" });
  });

  it("runs at most RUNNER_CONCURRENCY jobs; the rest wait", async () => {
    const slow = jobRequest({
      args: ["-re", "-i", "{{in}}", "-t", "3", "-f", "null", "-"],
      inputs: [input("in", "long.mp4")],
    });
    const next = jobRequest({ binary: "ffprobe", args: ["{{in}}"], inputs: [input("in", "clip.mp4")] });
    await h.api.submit(slow);
    await h.api.waitFor(slow.jobId, (s) => s.state === "running");
    await h.api.submit(next);
    expect((await h.api.status(next.jobId))!.state).toBe("waiting");
    await h.api.waitFor(next.jobId, (s) => s.state === "finished");
    expect((await h.api.status(slow.jobId))!.state).toBe("finished");
  });

  it("cancels a job waiting for a slot at once, and reports when a job got its slot", async () => {
    const slow = jobRequest({
      args: ["-re", "-i", "{{in}}", "-t", "3", "-f", "null", "-"],
      inputs: [input("in", "long.mp4")],
    });
    const waiting = jobRequest({ binary: "ffprobe", args: ["{{in}}"], inputs: [input("in", "clip.mp4")] });
    await h.api.submit(slow);
    const running = await h.api.waitFor(slow.jobId, (s) => s.state === "running");
    expect(Date.parse(running.startedAt!)).toBeGreaterThan(Date.now() - 10_000);
    await h.api.submit(waiting);
    expect(await h.api.status(waiting.jobId)).toMatchObject({ state: "waiting", startedAt: null });
    const t0 = Date.now();
    const canceled = await h.api.cancel(waiting.jobId);
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(canceled).toMatchObject({ startedAt: null, outcome: { status: "canceled", runtimeMs: 0 } });
    await h.api.cancel(slow.jobId);
  });

  it("cancels a job its coordinator stopped asking about (lease expired)", async () => {
    const req = jobRequest({
      leaseMs: 1500,
      args: ["-re", "-i", "{{in}}", "-f", "null", "-"],
      inputs: [input("in", "long.mp4")],
    });
    await h.api.submit(req);
    await new Promise((r) => setTimeout(r, 3500));
    const status = await h.api.status(req.jobId);
    // The infrastructure's loss, not a cancel: the coordinator (if it comes back) retries it uncharged.
    expect(status!.outcome).toMatchObject({ status: "failed", errorCode: "RUNNER_LOST" });
    expect(h.runner.logs()).toContain(`job ${req.jobId}: no word from its coordinator`);
  });

  it("answers only its coordinator: every call but /healthz needs the secret they share", async () => {
    const wrong = { "x-ffjobs-runner-secret": "0".repeat(64) };
    for (const [method, path] of [
      ["POST", "/jobs"],
      ["GET", `/jobs/${crypto.randomUUID()}`],
      ["POST", "/probe"],
      ["GET", "/capabilities"],
    ]) {
      for (const headers of [{}, wrong]) {
        const res = await fetch(`${h.runner.url}${path}`, {
          method,
          headers,
          body: method === "POST" ? JSON.stringify(jobRequest({})) : undefined,
        });
        expect(res.status, `${method} ${path}`).toBe(401);
      }
    }
    expect(h.runner.logs()).not.toMatch(/job .*: started/);
    expect((await fetch(`${h.runner.url}/healthz`)).status).toBe(200);
  });

  it("on SIGTERM with RUNNER_DRAIN_ON_SIGTERM (a container rollout), takes no new job, finishes the one it runs, and exits once its report is collected", async () => {
    const runner = await startRunner(await freePort(), { RUNNER_DRAIN_ON_SIGTERM: "on" });
    const api = runnerApi(runner);
    const exited = new Promise<number | null>((r) => runner.child.once("exit", (code) => r(code)));
    const running = jobRequest({
      args: ["-re", "-i", "{{in}}", "-t", "1.5", "-f", "null", "-"],
      inputs: [input("in", "clip.mp4")],
    });
    await api.submit(running);
    await api.waitFor(running.jobId, (st) => st.state === "running");
    runner.child.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 200));
    expect((await api.submit(jobRequest({ args: ["-version"] }))).status).toBe(503);
    expect((await api.waitFor(running.jobId, (st) => st.state === "finished")).outcome).toMatchObject({
      status: "completed",
    });
    expect(runner.child.exitCode).toBeNull();
    await api.fetch(`/jobs/${running.jobId}`, { method: "DELETE" });
    expect(await exited).toBe(0);
    expect(runner.logs()).toMatch(/SIGTERM: draining 1 job\(s\)/);
  });

  it("refuses to start without a secret of its own", async () => {
    await expect(startRunner(await freePort(), { RUNNER_CONTROL_SECRET: "short" })).rejects.toThrow(/exited early/);
  });

  it("rejects malformed job requests", async () => {
    const r = await h.api.fetch("/jobs", { method: "POST", body: JSON.stringify({ jobId: "x" }) });
    expect(r.status).toBe(400);
    const broken = await h.api.fetch("/jobs", { method: "POST", body: "{" });
    expect(broken.status).toBe(400);
  });
});
