import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDevStack, type DevStack } from "../support/dev-stack.ts";

const root = resolve(import.meta.dirname, "../..");

/** Runs `npm run smoke`'s script as a person would, and collects what it printed. */
function smoke(args: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [resolve(root, "scripts/smoke.ts"), ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
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
    for (const line of [/✓ the runner answers/, /✓ uploaded 16044 bytes/, /✓ ffmpeg job \S+ completed/, /✓ downloaded the output: the same 16000 bytes/, /✓ ffprobe job \S+ read a URL input \(pcm_s16le\)/, /smoke test passed/]) {
      expect(output).toMatch(line);
    }
  });

  it("fails at once, without waiting, when the key is refused", async () => {
    const started = Date.now();
    const { code, output } = await smoke(["--url", stack.baseUrl, "--key", `ffj_${"A".repeat(43)}`, "--wait-minutes", "2"]);
    expect(code).toBe(1);
    expect(output).toMatch(/smoke test FAILED: the API key was refused \(401\)/);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it("waits out a service that does not answer yet with a clear message, within its bound", async () => {
    // A loopback port nothing listens on: every try is a refused connection, as before a first deploy answers.
    const started = Date.now();
    const { code, output } = await smoke(["--url", "http://127.0.0.1:9", "--key", stack.apiKey, "--wait-minutes", "0.1", "--retry-seconds", "2"]);
    expect(code).toBe(1);
    expect(output).toMatch(/containers are still starting: Cloudflare notes that container requests can fail for several minutes after a first deploy/);
    expect(output).toMatch(/runner: not ready yet \(cannot connect: .*\); waited \d+ s of 6 s/);
    expect(output).toMatch(/smoke test FAILED: runner: the service was still not ready after \d+ s/);
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});
