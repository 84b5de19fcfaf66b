import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * `npm run deploy` interrupted while wrangler holds the R2 token in the temp folder: the
 * folder goes, whatever the signal. A child Node process runs the deploy's own plan executor with its
 * interrupt guard; its "wrangler" blocks as the real one does (spawnSync), 3 s.
 */
const root = resolve(import.meta.dirname, "../..");
const DEPLOY_CHILD = `
import { mkdtempSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { executePlan } from "${root}/scripts/deploy/execute.ts";
import { removeOnInterrupt } from "${root}/scripts/deploy/interrupts.ts";
const dir = mkdtempSync(join(tmpdir(), "ffjobs-deploy-test-"));
removeOnInterrupt(dir);
const secrets = join(dir, "r2-secrets.json");
const wrangler = () => (console.log("WRANGLER " + secrets), spawnSync("sleep", ["3"]), { status: 0, stdout: "", stderr: "" });
const step = (why) => ({ kind: "wrangler", why, args: ["deploy"], files: [{ path: secrets, content: "{}", secret: true }] });
await executePlan([step("deploy"), step("after")], { wrangler, buildDashboard() {}, async smoke() {}, log() {}, accountId: "a" });
console.log("FINISHED");
`;

async function interrupted(signal: NodeJS.Signals, group: boolean) {
  const child = spawn(process.execPath, ["--input-type=module", "-e", DEPLOY_CHILD], {
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (c: Buffer) => (out += c));
  child.stderr.on("data", (c: Buffer) => (out += c));
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  while (!out.includes("WRANGLER ")) await new Promise((r) => setTimeout(r, 20));
  const secrets = /WRANGLER (\S+)/.exec(out)![1];
  expect(existsSync(secrets)).toBe(true);
  // Ctrl-C reaches the whole foreground group (wrangler too); `kill PID` the deploy alone.
  process.kill(group ? -child.pid! : child.pid!, signal);
  const code = await exited;
  return { code, out, secrets };
}

describe("an interrupted deploy", () => {
  it("removes its temp folder when killed alone mid-step (SIGTERM), and runs no further step", async () => {
    const { code, out, secrets } = await interrupted("SIGTERM", false);
    expect(existsSync(secrets)).toBe(false);
    expect(existsSync(join(secrets, ".."))).toBe(false);
    expect(out).not.toContain("FINISHED");
    expect(out.match(/WRANGLER /g)).toHaveLength(1);
    expect(code).toBe(128 + 15);
  });

  it("removes it on Ctrl-C (SIGINT to the process group)", async () => {
    const { code, secrets } = await interrupted("SIGINT", true);
    expect(existsSync(join(secrets, ".."))).toBe(false);
    expect(code).toBe(128 + 2);
  });
});
