import { copyFileSync, readFileSync } from "node:fs";
import https from "node:https";
import http from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { egressRefusal } from "../../src/runner/egress-scope.ts";
import { freePort } from "../support/free-port.ts";
import { mediaFixtures } from "../support/media-fixtures.ts";
import { startRunner } from "../support/runner-process.ts";
import { makeTestCa } from "../support/test-ca.ts";
import { jobRequest, runnerApi } from "./runner-api.ts";
import { readSettings } from "../../container/src/settings.ts";
import { FetchFailure, safeDownload } from "../../container/src/safe-fetch.ts";

/**
 * The runner as production's egress treats it, at the unit level (the container suite's sidecar
 * double speaks plain HTTP only): Cloudflare intercepts the container's HTTPS with a CA it writes
 * into the container, hands the Worker only ports 80/443, and the Worker refuses unscoped requests.
 * Here a loopback HTTPS server with a certificate from a test CA plays the intercepting proxy.
 */
const fx = mediaFixtures();
const ca = makeTestCa();
const uploads = new Map<string, Buffer>();
let interceptor: https.Server;
let interceptorUrl: string;
let refuser: http.Server;
let refuserUrl: string;
const runners: Awaited<ReturnType<typeof startRunner>>[] = [];

async function listen(server: http.Server | https.Server, scheme: string): Promise<string> {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const addr = server.address();
  return `${scheme}://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}`;
}

async function runner(env: Record<string, string>) {
  const r = await startRunner(await freePort(), { RUNNER_CONCURRENCY: "2", ...env });
  runners.push(r);
  return runnerApi(r);
}

async function runJob(api: ReturnType<typeof runnerApi>, inputUrl: string, withOutput = true) {
  const req = jobRequest({
    args: ["-i", "{{in}}", ...(withOutput ? ["-c:a", "pcm_s16le", "{{out}}"] : ["-f", "null", "-"])],
    inputs: [{ name: "in", url: inputUrl, fileName: "tone.wav", trusted: false }],
    outputs: withOutput
      ? [
          {
            name: "out",
            fileName: "out.wav",
            contentType: "audio/wav",
            uploadUrl: `${interceptorUrl}/upload/${crypto.randomUUID()}`,
          },
        ]
      : [],
  });
  await api.submit(req);
  return (await api.waitFor(req.jobId, (s) => s.state === "finished")).outcome!;
}

beforeAll(async () => {
  interceptor = https.createServer({ cert: ca.cert, key: ca.key }, async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method === "PUT") {
      uploads.set(req.url!, Buffer.concat(chunks));
      return res.writeHead(200).end();
    }
    res.writeHead(200, { "content-type": "audio/wav" }).end(readFileSync(fx.tone));
  });
  interceptorUrl = await listen(interceptor, "https");
  // Answers as the Worker's egress does (the same function builds the refusal).
  refuser = http.createServer(async (req, res) => {
    const refusal = egressRefusal("GET", `http://${req.headers.host}${req.url}`);
    res.writeHead(refusal.status, Object.fromEntries(refusal.headers)).end(await refusal.text());
  });
  refuserUrl = await listen(refuser, "http");
});
afterAll(() => {
  for (const r of runners) r.stop();
  interceptor?.close();
  refuser?.close();
});

describe("the runner behind production's egress", () => {
  it("trusts the interception CA (by default at Cloudflare's path): https inputs and uploads work", async () => {
    expect(readSettings({ RUNNER_CONTROL_SECRET: "x".repeat(32) }).extraCaFile).toBe(
      "/etc/cloudflare/certs/cloudflare-containers-ca.crt",
    );
    const api = await runner({ RUNNER_EXTRA_CA_FILE: ca.caFile });
    const outcome = await runJob(api, `${interceptorUrl}/tone.wav`);
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ status: "completed", errorCode: null });
    expect([...uploads.values()].some((b) => b.subarray(0, 4).toString() === "RIFF")).toBe(true);
  });

  it("without that CA the same https input fails certificate verification", async () => {
    const api = await runner({ RUNNER_EXTRA_CA_FILE: join(ca.dir, "absent.pem") });
    const outcome = await runJob(api, `${interceptorUrl}/tone.wav`, false);
    expect(outcome).toMatchObject({ status: "failed", errorCode: "INPUT_FETCH_FAILED" });
  });

  it("picks the CA up when it is written after the runner started", async () => {
    const later = join(ca.dir, "written-later.pem");
    const api = await runner({ RUNNER_EXTRA_CA_FILE: later });
    copyFileSync(ca.caFile, later);
    expect(await runJob(api, `${interceptorUrl}/tone.wav`, false)).toMatchObject({ status: "completed" });
  });

  it("with production's egress ports, refuses an input on another port before connecting, saying why", async () => {
    const api = await runner({ RUNNER_EXTRA_CA_FILE: ca.caFile, RUNNER_EGRESS: "cloudflare" });
    const port = new URL(interceptorUrl).port;
    const outcome = await runJob(api, `${interceptorUrl}/tone.wav`, false);
    expect(outcome.errorCode).toBe("INPUT_FETCH_FAILED");
    expect(outcome.errorMessage).toContain(`port ${port} cannot be reached`);
  });

  it("explains a request the Worker's egress refused", async () => {
    const api = await runner({});
    const outcome = await runJob(api, `${refuserUrl}/elsewhere.wav`, false);
    expect(outcome.errorCode).toBe("INPUT_FETCH_FAILED");
    expect(outcome.errorMessage).toMatch(
      /the service's egress refused GET 127\.0\.0\.1:\d+ is not one of this job's inputs or outputs/,
    );
  });

  it("behind Cloudflare's sidecar, refuses an https input named by IP address before connecting (no SNI to route it by)", async () => {
    const failure = await safeDownload("https://93.184.216.34/clip.mp4", join(ca.dir, "never"), {
      allowedPrivateHosts: [],
      maxBytes: 1024,
      timeoutMs: 1000,
      viaCloudflareSidecar: true,
    }).catch((e) => e);
    expect(failure).toBeInstanceOf(FetchFailure);
    expect(failure.message).toMatch(/https inputs need a host name, not an IP address/);
  });
});
