import { spawn } from "node:child_process";
import { join, resolve } from "node:path";
import type { DevStack } from "./dev-stack.ts";

const root = resolve(import.meta.dirname, "../..");

/** `ffjobs …` as a user runs it in a folder of theirs, against a local stack; its exit code and output. */
export function runFfjobs(
  stack: DevStack,
  args: string[],
  cwd: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [join(root, "cli/src/main.ts"), ...args], {
    cwd,
    env: { ...process.env, FFJOBS_URL: stack.baseUrl, FFJOBS_API_KEY: stack.apiKey, FFJOBS_CONFIG: "/nonexistent" },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  return new Promise((done) => child.on("exit", (code) => done({ code, stdout, stderr })));
}
