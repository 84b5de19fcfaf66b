import { spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../support/free-port.ts";
import { startRunner } from "../support/runner-process.ts";

const root = resolve(import.meta.dirname, "../..");

/** The files container/Dockerfile copies into the image, as [source, destination under WORKDIR]. */
function dockerfileCopies(): [string, string][] {
  const dockerfile = readFileSync(join(root, "container/Dockerfile"), "utf8");
  return [...dockerfile.matchAll(/^COPY\s+(\S+)\s+(\S+)\s*$/gm)].map((m) => [m[1], m[2]]);
}

const app = mkdtempSync(join(tmpdir(), "ffjobs-image-files-"));
afterAll(() => rmSync(app, { recursive: true, force: true }));

describe("the runner image's file set", () => {
  it("is enough to start the runner: every module it imports is copied, and none needs node_modules", async () => {
    const copies = dockerfileCopies();
    expect(copies.length).toBeGreaterThan(0);
    for (const [from, to] of copies) cpSync(join(root, from), join(app, to), { recursive: true });
    // The image's CMD, from the image's file set alone (no node_modules anywhere above it).
    const child = spawn(process.execPath, ["container/src/main.ts"], {
      cwd: app,
      env: {
        PATH: process.env.PATH,
        RUNNER_HOST: "127.0.0.1",
        RUNNER_PORT: "0",
        RUNNER_WORK_DIR: join(app, "work"),
        RUNNER_CONTROL_SECRET: "s".repeat(32),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const started = await new Promise<boolean>((done) => {
      child.stdout.on("data", (c: Buffer) => {
        output += c;
        if (output.includes("listening on")) done(true);
      });
      child.stderr.on("data", (c: Buffer) => (output += c));
      child.once("exit", () => done(false));
    });
    child.kill("SIGKILL");
    expect(started, output).toBe(true);
  });
});

describe("the runner's work dir at start", () => {
  it("loses the job folders a dead runner left behind, and nothing else", async () => {
    const workDir = mkdtempSync(join(tmpdir(), "ffjobs-leftovers-"));
    const leftover = join(workDir, crypto.randomUUID());
    mkdirSync(join(leftover, "in"), { recursive: true });
    writeFileSync(join(leftover, "in", "big.mp4"), "x");
    writeFileSync(join(workDir, "not-a-job.txt"), "keep");
    const runner = await startRunner(await freePort(), { RUNNER_WORK_DIR: workDir });
    runner.stop();
    expect(readdirSync(workDir)).toEqual(["not-a-job.txt"]);
    expect(runner.logs()).toContain("removed 1 job folder(s)");
  });
});
