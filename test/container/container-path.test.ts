import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LAB } from "../../lab/lab-paths.ts";
import { apiClient, isFinished } from "../support/api-client.ts";
import type { DevStack } from "../support/dev-stack.ts";
import { mediaFixtures } from "../support/media-fixtures.ts";
import { startStaticServer } from "../support/static-server.ts";
import { HOSTS, labOrReason, startContainerStack, stopContainerStack } from "./container-stack.ts";
import { labDocker, runningRunnerContainers, theRunnerContainer } from "./lab-docker.ts";
import { platformFindings } from "./platform-findings.ts";
import { assertLocal, startTestHosts, TEST_HOSTS, type TestHosts } from "./test-hosts.ts";

/**
 * The production path, for real: the Worker under `wrangler dev` with containers enabled, jobs in
 * containers from the warm pool (the default placement) built from container/Dockerfile by
 * wrangler, their egress through the Worker's outbound handler (via the lab's sidecar double,
 * which answers DNS and intercepts TLS as Cloudflare's does), driven over the public API. URL
 * inputs are named by host name, on hosts with public addresses in a namespace of the suite's own.
 */
const execFileAsync = promisify(execFile);
const JOB_TIMEOUT_SECONDS = 15;
/** A job's disk in these containers: smaller than long.mp4, which a job still reads whole (by range). */
const JOB_DISK_BYTES = 16 * 1024 * 1024;
const skipReason = await labOrReason();
const fx = mediaFixtures();
let stack: DevStack;
let hosts: TestHosts;
let elsewhere: Awaited<ReturnType<typeof startStaticServer>>;
const media = { url: `http://${TEST_HOSTS.media.name}` };
const secureMedia = { url: `https://${TEST_HOSTS.media.name}` };
const cdn = { url: `https://${TEST_HOSTS.cdn.name}` };
let api: ReturnType<typeof apiClient>;

/** A job that runs until stopped: it reads a two-minute input at its real rate. */
const endlessJob = () => ({
  inputs: { a: { type: "url", url: `${media.url}/long.mp4` } },
  ffmpegArgs: ["-re", "-i", "{{a}}", "-f", "null", "-"],
});

async function createJob(body: unknown): Promise<string> {
  const created = await api.call("POST", "/v1/jobs", body);
  expect(created.status, JSON.stringify(created.body)).toBe(202);
  return created.body.id;
}

/** No ffmpeg or bubblewrap left running in the container. */
function noJobProcesses(container: string): boolean {
  const processes = labDocker([
    "exec",
    container,
    "sh",
    "-c",
    'for p in /proc/[0-9]*; do tr "\\0" " " < $p/cmdline; echo; done',
  ]);
  return !/ffmpeg|bwrap/.test(processes);
}

async function runningWithProgress(id: string) {
  return api.waitUntil(id, (j) => isFinished(j) || (j.status === "running" && j.progress !== null), 60_000);
}

describe.skipIf(skipReason)("the production container path (real containers from container/Dockerfile)", () => {
  beforeAll(async () => {
    hosts = await startTestHosts(fx.dir);
    elsewhere = await startStaticServer(fx.dir, { host: HOSTS.elsewhere, port: 80 });
    stack = await startContainerStack(hosts, {
      JOB_TIMEOUT_SECONDS: String(JOB_TIMEOUT_SECONDS),
      CONTAINER_JOB_DISK_BYTES: String(JOB_DISK_BYTES),
    });
    api = apiClient(stack.baseUrl, stack.apiKey);
  });
  afterAll(async () => {
    await stopContainerStack(stack);
    hosts?.close();
    await elsewhere?.close();
  });

  it("reads URL inputs by host name over http and https: the sidecar's DNS and TLS interception, the Worker's address check", async () => {
    assertLocal();
    const id = await createJob({
      inputs: {
        video: { type: "url", url: `${secureMedia.url}/clip.mp4` },
        music: { type: "url", url: `${media.url}/tone.wav` },
      },
      outputs: { out: { fileName: "out.mp4" } },
      ffmpegArgs: [
        "-i",
        "{{video}}",
        "-i",
        "{{music}}",
        "-map",
        "0:v",
        "-map",
        "1:a",
        "-c:v",
        "copy",
        "-c:a",
        "aac",
        "-shortest",
        "{{out}}",
      ],
    });
    const job = await api.waitUntil(id, isFinished);
    expect(job, stack.logs().slice(-3000)).toMatchObject({ status: "completed", errorCode: null });
    expect(hosts.requests(TEST_HOSTS.media.name)).toEqual(
      expect.arrayContaining([
        `https ${TEST_HOSTS.media.name} GET /clip.mp4`,
        `http ${TEST_HOSTS.media.name} GET /tone.wav`,
      ]),
    );
  });

  it("follows a redirect to another host the job names, and refuses one to a host it does not name or that resolves privately, reaching neither", async () => {
    const to = (url: string) => `${secureMedia.url}/redirect?to=${encodeURIComponent(url)}`;
    const followed = await createJob({
      inputs: { a: { type: "url", url: to(`${cdn.url}/clip.mp4`) }, b: { type: "url", url: `${cdn.url}/tone.wav` } },
      ffmpegArgs: ["-i", "{{a}}", "-i", "{{b}}", "-f", "null", "-"],
    });
    expect(await api.waitUntil(followed, isFinished), stack.logs().slice(-3000)).toMatchObject({ status: "completed" });
    expect(hosts.requests(TEST_HOSTS.cdn.name)).toEqual(
      expect.arrayContaining([`https ${TEST_HOSTS.cdn.name} GET /clip.mp4`]),
    );

    const unnamed = await createJob({
      inputs: { a: { type: "url", url: to(`https://${TEST_HOSTS.unnamed.name}/clip.mp4`) } },
      ffmpegArgs: ["-i", "{{a}}", "-f", "null", "-"],
    });
    const refused = await api.waitUntil(unnamed, isFinished);
    expect(refused).toMatchObject({ status: "failed", errorCode: "INPUT_FETCH_FAILED" });
    expect(refused.errorMessage).toMatch(
      /egress refused unnamed\.ffjobs-lab\.test: media\.ffjobs-lab\.test redirected there, and no input of the job names that host/,
    );

    const sneakyUrl = `http://${TEST_HOSTS.sneaky.name}/clip.mp4`;
    const viaRedirect = await createJob({
      inputs: { a: { type: "url", url: to(sneakyUrl) }, b: { type: "url", url: `${sneakyUrl}?named` } },
      ffmpegArgs: ["-i", "{{a}}", "-i", "{{b}}", "-f", "null", "-"],
    });
    expect((await api.waitUntil(viaRedirect, isFinished)).errorMessage).toMatch(
      /sneaky\.ffjobs-lab\.test resolves to 127\.0\.0\.5, which is not a public address/,
    );
    expect(hosts.requests(TEST_HOSTS.unnamed.name)).toEqual([]);
    expect(elsewhere.requests).toEqual([]);
  });

  it("refuses an input whose name resolves to a private address at the Worker, saying so, without reaching it", async () => {
    const id = await createJob({
      inputs: { a: { type: "url", url: `http://${TEST_HOSTS.sneaky.name}/clip.mp4` } },
      ffmpegArgs: ["-i", "{{a}}", "-f", "null", "-"],
    });
    const job = await api.waitUntil(id, isFinished);
    expect(job).toMatchObject({ status: "failed", errorCode: "INPUT_FETCH_FAILED", creditsCharged: 0 });
    expect(job.errorMessage).toMatch(
      /egress refused sneaky\.ffjobs-lab\.test: sneaky\.ffjobs-lab\.test resolves to 127\.0\.0\.5/,
    );
    expect(elsewhere.requests).toEqual([]);
    // An IP literal that is private is a 400 at creation.
    const literal = await api.call("POST", "/v1/jobs", {
      inputs: { a: { type: "url", url: `http://${HOSTS.elsewhere}/clip.mp4` } },
      ffmpegArgs: ["-i", "{{a}}", "-f", "null", "-"],
    });
    expect(literal.status).toBe(400);
  });

  it("uploads a file, transcodes it with a URL input mixed in, and serves an output that ffprobe reads", async () => {
    const slot = await api.call("POST", "/v1/files", { fileName: "clip.mp4", contentType: "video/mp4" });
    expect(
      (
        await fetch(slot.body.upload.url, {
          method: "PUT",
          body: readFileSync(fx.clip),
          headers: slot.body.upload.headers,
        })
      ).status,
    ).toBe(200);
    const id = await createJob({
      inputs: { video: { type: "asset", assetId: slot.body.id }, music: { type: "url", url: `${media.url}/tone.wav` } },
      outputs: { out: { fileName: "mixed.mp4" } },
      ffmpegArgs: [
        "-i",
        "{{video}}",
        "-i",
        "{{music}}",
        "-map",
        "0:v",
        "-map",
        "1:a",
        "-vf",
        "scale=160:-2",
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        "-c:a",
        "aac",
        "-shortest",
        "{{out}}",
      ],
    });
    const job = await api.waitUntil(id, isFinished);
    expect(job, stack.logs().slice(-3000)).toMatchObject({ status: "completed", errorCode: null });
    const download = await fetch(job.outputs[0].downloadUrl);
    expect(download.status).toBe(200);
    const path = join(tmpdir(), `ffjobs-container-${id}.mp4`);
    writeFileSync(path, Buffer.from(await download.arrayBuffer()));
    const probed = JSON.parse(
      execFileSync("ffprobe", ["-v", "error", "-print_format", "json", "-show_streams", path], { encoding: "utf8" }),
    );
    expect(probed.streams.map((s: { codec_name: string }) => s.codec_name).sort()).toEqual(["aac", "h264"]);
    expect(probed.streams.find((s: { codec_type: string }) => s.codec_type === "video").width).toBe(160);
  });

  it("stores a directory output (HLS) through the Worker's egress handler; it plays from its URL, and the container can write nothing else there", async () => {
    const id = await createJob({
      inputs: { a: { type: "url", url: `${secureMedia.url}/clip.mp4` } },
      outputs: { hls: { kind: "directory", fileName: "index.m3u8" } },
      ffmpegArgs: [
        "-i",
        "{{a}}",
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
        "{{hls}}",
      ],
    });
    const job = await api.waitUntil(id, isFinished);
    expect(job, stack.logs().slice(-3000)).toMatchObject({ status: "completed" });
    expect(job.outputs[0].files.length).toBeGreaterThan(2);
    const played = JSON.parse(
      execFileSync(
        "ffprobe",
        ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", job.outputs[0].downloadUrl],
        { encoding: "utf8" },
      ),
    );
    expect(played.streams.map((s: { codec_name: string }) => s.codec_name).sort()).toEqual(["aac", "h264"]);
    expect(Number(played.format.duration)).toBeCloseTo(3, 0);
    // The job is over: its upload prefix is refused like everything else, token or not.
    const container = await theRunnerContainer();
    const put = `const r = await fetch(process.argv[1], { method: "PUT", body: "x" }); console.log(r.status, r.headers.get("x-ffjobs-egress"));`;
    expect(
      labDocker([
        "exec",
        container,
        "node",
        "--input-type=module",
        "-e",
        put,
        `http://runner-files.ffjobs.internal/jobs/${id}/hls/evil.ts`,
      ]).trim(),
    ).toBe("403 refused");
  });

  it("keeps the container warm between jobs with no trace of the last one: no job folder, its URLs refused", async () => {
    const container = await theRunnerContainer();
    expect(labDocker(["exec", container, "ls", "-A", "/work"]).trim()).toBe("");
    expect(noJobProcesses(container)).toBe(true);
    const probe = `const r = await fetch(process.argv[1]); console.log(r.status, r.headers.get("x-ffjobs-egress"));`;
    expect(
      labDocker(["exec", container, "node", "--input-type=module", "-e", probe, `${media.url}/tone.wav`]).trim(),
    ).toBe("403 refused");
    // The operator's metrics saw it: the pool's first job started a container, later ones found it running.
    const metrics = (await api.call("GET", "/v1/admin/metrics")).body as {
      containerStarts: { cold: number; warm: number };
      jobs: Record<string, number>;
    };
    expect(metrics.containerStarts.cold, JSON.stringify(metrics)).toBeGreaterThanOrEqual(1);
    expect(metrics.containerStarts.warm).toBeGreaterThanOrEqual(1);
    expect(metrics.containerStarts.cold + metrics.containerStarts.warm).toBeLessThanOrEqual(
      Object.values(metrics.jobs).reduce((a, b) => a + b, 0),
    );
  });

  it("reads an input bigger than the container's job disk by range while the job runs, never storing it", async () => {
    const size = readFileSync(fx.long).length;
    expect(size).toBeGreaterThan(JOB_DISK_BYTES);
    const id = await createJob({
      inputs: { a: { type: "url", url: `${media.url}/long.mp4` } },
      ffmpegArgs: ["-i", "{{a}}", "-c", "copy", "-f", "null", "-"],
    });
    const job = await api.waitUntil(id, isFinished, 60_000);
    expect(job, stack.logs().slice(-3000)).toMatchObject({ status: "completed", inputReads: { a: { copied: false } } });
    // All of it was read (the index at its end, and the runner's own duration probe, read parts twice).
    expect(job.inputReads.a.bytesRead).toBeGreaterThanOrEqual(size);
    expect(job.inputReads.a.originBytes).toBeGreaterThanOrEqual(size);
    // In ranges through the Worker's egress, not one whole download.
    expect(hosts.requests(TEST_HOSTS.media.name).filter((r) => r.endsWith("GET /long.mp4")).length).toBeGreaterThan(3);
  });

  it("runs an ffprobe job on a URL input and returns its JSON", async () => {
    const id = await createJob({
      binary: "ffprobe",
      input: [{ type: "url", url: `${secureMedia.url}/clip.mp4` }],
      ffmpegArgs: ["-v", "error", "-print_format", "json", "-show_format", "{{input0}}"],
    });
    await api.waitUntil(id, isFinished);
    const result = await api.call("GET", `/v1/jobs/${id}/result`);
    expect(result.body).toMatchObject({ status: "completed", exitCode: 0 });
    expect(Number(result.body.probe.format.duration)).toBeCloseTo(3, 0);
  });

  it("answers a dry run's probe of the inputs and the capabilities from containers of their own", async () => {
    const dry = await api.call("POST", "/v1/jobs/validate?probe=true", {
      binary: "ffprobe",
      inputs: { a: { type: "url", url: `${media.url}/clip.mp4` } },
      ffmpegArgs: ["{{a}}"],
    });
    expect(dry.body, stack.logs().slice(-2000)).toMatchObject({ valid: true, inputs: { a: { ok: true } } });
    expect(dry.body.inputs.a.durationSeconds).toBeCloseTo(3, 0);
    const caps = await api.call("GET", "/v1/capabilities");
    expect(caps.status, stack.logs().slice(-2000)).toBe(200);
    expect(caps.body.ffmpeg).toMatch(/^ffmpeg version/);
  });

  it("npm run smoke's platform checks read a real container's report as expected: placeholders, bubblewrap, only the Worker reached, notifications delivered", async () => {
    const { report, findings } = await platformFindings(stack);
    expect(
      findings.filter((f) => f.verdict !== "expected"),
      JSON.stringify(report),
    ).toEqual([]);
    expect(report.sandbox.mode).toBe("namespaces");
    expect(report.dns.flatMap((d) => d.addresses.map((a) => a.address))).toEqual(expect.arrayContaining(["11.0.0.1"]));
    expect(report.notification.outcome).toBe("delivered");
  });

  it("gives a failing command a clear error", async () => {
    const id = await createJob({
      inputs: { a: { type: "url", url: `${media.url}/clip.mp4` } },
      outputs: { o: { fileName: "o.mp4" } },
      ffmpegArgs: ["-i", "{{a}}", "-c:v", "no_such_codec", "{{o}}"],
    });
    const job = await api.waitUntil(id, isFinished);
    expect(job).toMatchObject({ status: "failed", errorCode: "PROCESS_FAILED" });
    expect(job.errorMessage).toMatch(/no_such_codec/);
  });

  it("refuses at creation a URL input on a port the container egress cannot reach", async () => {
    const created = await api.call("POST", "/v1/jobs", {
      inputs: { a: { type: "url", url: `http://${TEST_HOSTS.media.name}:8080/clip.mp4` } },
      ffmpegArgs: ["-i", "{{a}}", "-f", "null", "-"],
    });
    expect(created.status).toBe(400);
    expect(created.body.details).toEqual([
      expect.objectContaining({
        path: ["inputs", "a", "url"],
        message: expect.stringContaining("port 8080 cannot be reached"),
      }),
    ]);
  });

  it("runs ffmpeg inside bubblewrap in the container, and reaches nothing but the job's own requests", async () => {
    const id = await createJob(endlessJob());
    expect((await runningWithProgress(id)).status).toBe("running");
    const container = await theRunnerContainer();
    const processes = labDocker([
      "exec",
      container,
      "sh",
      "-c",
      'for p in /proc/[0-9]*; do tr "\\0" " " < $p/cmdline; echo; done',
    ]);
    expect(processes).toMatch(/bwrap .*--unshare-all.* \/usr\/bin\/ffmpeg/);
    // From inside the job's container, as its runner would: the API (same host as storage), a loopback
    // address, a host the job does not name, a port the Worker is not handed, and the runner's own port.
    const probe = `const r = []; for (const u of process.argv.slice(1)) { try { const res = await fetch(u, { signal: AbortSignal.timeout(10000) });
      r.push([u, res.status, res.headers.get("x-ffjobs-egress")]); } catch (e) { r.push([u, "error", String(e.cause?.code ?? e.message)]); } } console.log(JSON.stringify(r));`;
    const urls = [
      `http://${TEST_HOSTS.api.name}/openapi.json`,
      `http://${HOSTS.elsewhere}/clip.mp4`,
      `https://${TEST_HOSTS.unnamed.name}/clip.mp4`,
      `http://${TEST_HOSTS.media.name}:8080/clip.mp4`,
      "http://127.0.0.1:8080/healthz",
    ];
    // As the runner does, trusting the interception CA workerd wrote into the container.
    const seen = JSON.parse(
      labDocker([
        "exec",
        "-e",
        "NODE_EXTRA_CA_CERTS=/etc/cloudflare/certs/cloudflare-containers-ca.crt",
        container,
        "node",
        "--input-type=module",
        "-e",
        probe,
        ...urls,
      ]),
    );
    expect(seen[0]).toEqual([urls[0], 403, "refused"]);
    expect(seen[2]).toEqual([urls[2], 403, "refused"]);
    // Loopback is the container's own, which the sidecar leaves alone: nothing listens on its port 80,
    // the runner answers on 8080. Another port goes to workerd, which closes it (no mapping, no internet).
    expect(seen[1]).toEqual([urls[1], "error", "ECONNREFUSED"]);
    expect(seen[3][1]).toBe("error");
    expect(seen[4][1]).toBe(200);
    expect(elsewhere.requests).toEqual([]);
    expect(hosts.requests(TEST_HOSTS.unnamed.name)).toEqual([]);
    await api.call("POST", `/v1/jobs/${id}/cancel`);
  });

  it("refuses a redirect to a host the job did not name, saying why, without reaching it", async () => {
    const id = await createJob({
      inputs: {
        a: { type: "url", url: `${media.url}/redirect?to=${encodeURIComponent(`http://${HOSTS.elsewhere}/clip.mp4`)}` },
      },
      ffmpegArgs: ["-i", "{{a}}", "-f", "null", "-"],
    });
    const job = await api.waitUntil(id, isFinished);
    expect(job).toMatchObject({ status: "failed", errorCode: "INPUT_FETCH_FAILED" });
    expect(job.errorMessage).toMatch(/egress refused 127\.0\.0\.5: media\.ffjobs-lab\.test redirected there/);
    expect(elsewhere.requests).toEqual([]);
  });

  it("cancels a running job: its process stops", async () => {
    const id = await createJob(endlessJob());
    await runningWithProgress(id);
    const container = await theRunnerContainer();
    const canceled = await api.call("POST", `/v1/jobs/${id}/cancel`);
    expect(canceled.body).toMatchObject({ status: "canceled", errorCode: "CANCELED" });
    expect(canceled.body.runtimeSeconds).toBeGreaterThanOrEqual(1);
    await expect.poll(() => noJobProcesses(container), { timeout: 15_000 }).toBe(true);
  });

  it("stops a job at its timeout", async () => {
    const id = await createJob(endlessJob());
    const job = await api.waitUntil(id, isFinished, (JOB_TIMEOUT_SECONDS + 30) * 1000);
    expect(job).toMatchObject({ status: "failed", errorCode: "JOB_TIMEOUT" });
    expect(job.runtimeSeconds).toBeLessThanOrEqual(JOB_TIMEOUT_SECONDS + 1);
    await expect.poll(() => noJobProcesses(runningRunnerContainers()[0]), { timeout: 15_000 }).toBe(true);
  });

  it("retries a job whose container is killed mid-job in a fresh container, within a bounded time", async () => {
    const id = await createJob({
      inputs: { a: { type: "url", url: `${media.url}/clip.mp4` } },
      ffmpegArgs: ["-re", "-i", "{{a}}", "-f", "null", "-"],
    });
    await runningWithProgress(id);
    const killed = await theRunnerContainer();
    labDocker(["kill", killed]);
    const killedAt = Date.now();
    const job = await api.waitUntil(id, isFinished, 90_000);
    expect(job).toMatchObject({ status: "completed", attempts: 2 });
    expect(job.runtimeSeconds).toBeLessThanOrEqual(5);
    expect(Date.now() - killedAt).toBeLessThan(60_000);
  });

  it("on a host without user namespaces, falls back to a uid per job with seccomp, says so, runs jobs, and holds against the sandbox attacks", async () => {
    const switchFile = join(LAB.dir, "confine-all");
    writeFileSync(switchFile, "");
    // The setting applies when a container is created: no warm one may serve this job.
    for (const name of runningRunnerContainers()) labDocker(["rm", "-f", name]);
    try {
      // Inputs are copied here (no network namespace for a relay), and JOB_DISK_BYTES bounds a copy: a small one, looped.
      const id = await createJob({
        inputs: { a: { type: "url", url: `${media.url}/clip.mp4` } },
        ffmpegArgs: ["-re", "-stream_loop", "100", "-i", "{{a}}", "-f", "null", "-"],
      });
      expect((await runningWithProgress(id)).status, stack.logs().slice(-3000)).toBe("running");
      const container = await theRunnerContainer();
      const health = `const r = await fetch("http://127.0.0.1:8080/healthz"); console.log(JSON.stringify(await r.json()));`;
      // Loopback is the container's own (the sidecar leaves it alone): the runner's port answers.
      expect(JSON.parse(labDocker(["exec", container, "node", "--input-type=module", "-e", health]))).toMatchObject({
        ok: true,
        sandbox: "uid",
      });
      // ffmpeg runs as the job's own uid under setpriv and the seccomp launcher, not as root, not in bubblewrap.
      const list = `import { readdirSync, readFileSync } from "node:fs"; for (const p of readdirSync("/proc").filter((d) => /^\\d+$/.test(d))) { try {
        const uid = /^Uid:\\s+(\\d+)/m.exec(readFileSync("/proc/" + p + "/status", "utf8"))[1]; console.log(uid, readFileSync("/proc/" + p + "/cmdline", "utf8").split("\\0").join(" ")); } catch {} }`;
      const processes = labDocker(["exec", container, "node", "--input-type=module", "-e", list]);
      const ffmpegLine = processes.split("\n").find((l) => /^\d+ \/usr\/bin\/ffmpeg /.test(l));
      // A job uid: 200,000+ where every id is mapped, 10,000+ under a remapped user namespace (uid-range.ts).
      expect(Number(ffmpegLine?.split(" ")[0]), processes).toBeGreaterThanOrEqual(10_000);
      expect(processes).not.toMatch(/bwrap/);
      await api.call("POST", `/v1/jobs/${id}/cancel`);
      const probe = await createJob({
        binary: "ffprobe",
        input: [{ type: "url", url: `${secureMedia.url}/clip.mp4` }],
        ffmpegArgs: ["-v", "error", "-print_format", "json", "-show_format", "{{input0}}"],
      });
      expect(await api.waitUntil(probe, isFinished)).toMatchObject({ status: "completed" });
      const caps = await api.call("GET", "/v1/capabilities");
      expect(caps.body.sandbox.mode).toMatch(/uid|namespaces/); // the cached answer may be an earlier runner's

      // The sandbox attacks of test/runner/attacks.test.ts, against the uid isolation itself.
      labDocker(["exec", container, "mkdir", "-p", "/app/test/container"]);
      labDocker(["cp", join(import.meta.dirname, "uid-attacks.ts"), `${container}:/app/test/container/uid-attacks.ts`]);
      const attacks = JSON.parse(
        labDocker(["exec", container, "node", "/app/test/container/uid-attacks.ts"], { timeoutMs: 120_000 }),
      );
      expect(attacks.id).toMatch(
        new RegExp(`^uid=${attacks.uids[0]} gid=${attacks.uids[0]} groups=${attacks.uids[0]}$`),
      );
      for (const attempt of attacks.network) {
        expect(attempt.status).not.toBe(0);
        expect(attempt.err).toMatch(/Operation not permitted/);
      }
      expect(attacks.runnerEnvironment.status).not.toBe(0);
      expect(attacks.otherJobsInput.status).not.toBe(0);
      expect(attacks.ownInput.status).toBe(0);
      expect(attacks.ownOutput).toBe(true);
      expect(attacks.messageQueue).toBe("-1 1"); // EPERM
      expect(attacks.workDirWrite).toBe(true);
      expect(attacks.writes).toEqual(Object.fromEntries(Object.keys(attacks.writes).map((k) => [k, false])));
      // A setsid'd, double-forked process of the job: alive until the job's end, then gone, not left a zombie of PID 1.
      // (Its first fork may still show as a zombie until PID 1 reaps it.)
      expect(
        attacks.afterJobEnd.escaped.filter((p: string) => !p.endsWith(" Z")),
        JSON.stringify(attacks.afterJobEnd),
      ).toHaveLength(1);
      expect(attacks.afterJobEnd.left, JSON.stringify(attacks.afterJobEnd)).toEqual([]);
    } finally {
      rmSync(switchFile, { force: true });
    }
  });

  // Last: it leaves several pool containers warm, and the tests before count the one running container.
  it("runs a split encode on several containers at once and joins their work into the output one run makes", async () => {
    // 12 s at 25 fps with a tone: the audio and two segments of 5 s (the last runs to the end), then the join.
    const source = join(fx.dir, "split-12s.mp4");
    // Not execFileSync: a blocked event loop keeps an API connection the server has since closed, and
    // the next POST on it fails "other side closed" (seen once).
    await execFileAsync("ffmpeg", [
      "-v",
      "error",
      "-y",
      "-f",
      "lavfi",
      "-i",
      "testsrc=size=320x240:rate=25:duration=12",
      "-f",
      "lavfi",
      "-i",
      "sine=frequency=440:duration=12",
      "-c:v",
      "libx264",
      "-g",
      "50",
      "-pix_fmt",
      "yuv420p",
      "-c:a",
      "aac",
      "-shortest",
      source,
    ]);
    const since = new Date(Date.now() - 1000).toISOString();
    const id = await createJob({
      inputs: { video: { type: "url", url: `${media.url}/split-12s.mp4` } },
      outputs: { out: { fileName: "out.mp4" } },
      ffmpegArgs: [
        "-i",
        "{{video}}",
        "-vf",
        "scale=160:-2",
        "-c:v",
        "libx264",
        "-preset",
        "veryfast",
        "-c:a",
        "aac",
        "{{out}}",
      ],
      parallel: { segmentSeconds: 5, maxWorkers: 2 },
    });
    const job = await api.waitUntil(id, isFinished, 60_000);
    expect(job, stack.logs().slice(-3000)).toMatchObject({ status: "completed" });
    const tasks = (await api.call("GET", `/v1/jobs/${id}/tasks`)).body.data;
    expect(tasks.map((t: any) => [t.name, t.status])).toEqual([
      ["audio", "completed"],
      ["segment-0", "completed"],
      ["segment-1", "completed"],
      ["join", "completed"],
    ]);
    // Each task ran in a container (one job at a time each): the runners' own logs say which.
    const ran = runningRunnerContainers().filter((c) =>
      /job [0-9a-f-]{36}: started/.test(labDocker(["logs", "--since", since, c], { timeoutMs: 10_000 })),
    );
    expect(ran.length, ran.join(", ")).toBeGreaterThanOrEqual(2);
    const packets = JSON.parse(
      execFileSync(
        "ffprobe",
        [
          "-v",
          "error",
          "-count_packets",
          "-show_entries",
          "stream=codec_name,nb_read_packets",
          "-of",
          "json",
          job.outputs[0].downloadUrl,
        ],
        { encoding: "utf8" },
      ),
    ).streams;
    expect(packets.map((p: any) => p.codec_name)).toEqual(["h264", "aac"]);
    expect(Number(packets[0].nb_read_packets)).toBe(12 * 25);
  });
});
