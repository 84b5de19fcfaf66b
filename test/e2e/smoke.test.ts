import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDevStack, type DevStack } from "../support/dev-stack.ts";
import { makeUserKey } from "../support/user-key.ts";

const root = resolve(import.meta.dirname, "../..");

/** Runs `npm run smoke`'s script as a person would, and collects what it printed. */
function smoke(args: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [resolve(root, "scripts/smoke.ts"), ...args], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (c: Buffer) => (output += c));
  child.stderr.on("data", (c: Buffer) => (output += c));
  return new Promise((done) => child.on("exit", (code) => done({ code, output })));
}

describe("npm run smoke against a local stack", () => {
  let stack: DevStack;
  beforeAll(async () => {
    // The probe job's URL input is the output's download URL, which a local stack serves on loopback.
    stack = await startDevStack({ ALLOWED_PRIVATE_HOSTS: "127.0.0.1" });
  });
  afterAll(() => stack?.stop());

  it("uploads, runs an ffmpeg job and a URL-input ffprobe job, downloads the output and checks it", async () => {
    const { code, output } = await smoke(["--url", stack.baseUrl, "--key", stack.apiKey, "--wait-minutes", "2"]);
    expect(code, output).toBe(0);
    for (const line of [
      /✓ the runner answers/,
      /✓ uploaded 16044 bytes/,
      /✓ ffmpeg job \S+ completed/,
      /✓ downloaded the output: the same 16000 bytes/,
      /✓ ffprobe job \S+ read a URL input \(pcm_s16le\)/,
      /smoke test passed/,
    ]) {
      expect(output).toMatch(line);
    }
  });

  it("reports every platform check: as expected where the local stack can show it, not applicable where only a container behind the sidecar can", async () => {
    const { code, output } = await smoke(["--url", stack.baseUrl, "--key", stack.apiKey, "--wait-minutes", "2"]);
    expect(code, output).toBe(0);
    const findings = output
      .split("\n")
      .filter((l) => /^\s+(✓ expected|✗ NOT expected|- not applicable here)/.test(l))
      .map((l) => l.trim());
    expect(
      findings.filter((l) => l.startsWith("✗")),
      output,
    ).toEqual([]);
    expect(findings, output).toEqual([
      expect.stringMatching(/^✓ expected: job sandbox: bubblewrap starts/),
      expect.stringMatching(
        /^- not applicable here: container DNS: the runner connects by itself here \(egress direct\)/,
      ),
      expect.stringMatching(
        /^- not applicable here: direct connection from the container: http:\/\/example\.com\/ was not tried/,
      ),
      expect.stringMatching(/^- not applicable here: HTTPS from the runner: https:\/\/example\.com\/ was not tried/),
      expect.stringMatching(
        /^✓ expected: runner notification: the runner's notification reached the Worker \(the Worker answered HTTP 204/,
      ),
      expect.stringMatching(
        /^✓ expected: HLS directory output: job \S+ wrote \d+ files; its playlist and seg_000\.ts \(\d+ bytes\) download/,
      ),
      expect.stringMatching(
        /^✓ expected: output sent to a destination: job \S+'s runner sent 16000 bytes to 127\.0\.0\.1:\d+ \(SHA-256 and ETag recorded\), and storage kept them/,
      ),
      expect.stringMatching(
        /^✓ expected: R2 refuses x-amz-copy-source on an upload URL: PUT with x-amz-copy-source answered HTTP 403 .*and the slot stayed empty; the same PUT without it stored its 12 bytes/,
      ),
      expect.stringMatching(
        /^✓ expected: multipart upload completed: 2 parts \(5242880 \+ 1024 bytes\) sent and completed/,
      ),
    ]);
    expect(output).toMatch(/\(runner: RUNNER_MODE local, egress direct; report in \d+ ms\)/);
  });

  it("fails, with what to do, when the key cannot read the platform report", async () => {
    const user = await makeUserKey(stack, "smoke-user");
    const { code, output } = await smoke(["--url", stack.baseUrl, "--key", user, "--wait-minutes", "2"]);
    expect(code, output).toBe(1);
    expect(output).toMatch(/✗ NOT expected: platform report: the API key is not an operator's/);
    expect(output).toMatch(/what to do: run it again without --key .* or with an operator's key/);
    expect(output).toMatch(/smoke test FAILED in \d+ s: 1 platform check\(s\) not as expected \(platform report\)/);
  });

  it("fails at once, without waiting, when the key is refused", async () => {
    const started = Date.now();
    const { code, output } = await smoke([
      "--url",
      stack.baseUrl,
      "--key",
      `ffj_${"A".repeat(43)}`,
      "--wait-minutes",
      "2",
    ]);
    expect(code).toBe(1);
    expect(output).toMatch(/smoke test FAILED: the API key was refused \(401\)/);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it("waits out a service that does not answer yet with a clear message, within its bound", async () => {
    // A loopback port nothing listens on: every try is a refused connection, as before a first deploy answers.
    const started = Date.now();
    const { code, output } = await smoke([
      "--url",
      "http://127.0.0.1:9",
      "--key",
      stack.apiKey,
      "--wait-minutes",
      "0.1",
      "--retry-seconds",
      "2",
    ]);
    expect(code).toBe(1);
    expect(output).toMatch(
      /containers are still starting: Cloudflare notes that container requests can fail for several minutes after a first deploy/,
    );
    expect(output).toMatch(/runner: not ready yet \(cannot connect: .*\); waited \d+ s of 6 s/);
    expect(output).toMatch(/smoke test FAILED: runner: the service was still not ready after \d+ s/);
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});
