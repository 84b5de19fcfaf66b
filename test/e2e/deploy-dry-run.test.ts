import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { spawnWrangler } from "../../scripts/wrangler.ts";

describe("production wiring", () => {
  it("bundles and validates with wrangler deploy --dry-run (container, DOs, queues, D1, R2)", async () => {
    const outdir = mkdtempSync(join(tmpdir(), "ffjobs-dry-run-"));
    const child = spawnWrangler(["deploy", "--dry-run", "--outdir", outdir, "--containers-rollout=none"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout!.on("data", (c: Buffer) => (output += c));
    child.stderr!.on("data", (c: Buffer) => (output += c));
    const code = await new Promise<number | null>((r) => child.on("exit", r));
    expect(code, output).toBe(0);
    expect(existsSync(join(outdir, "index.js"))).toBe(true);
    for (const binding of ["JOB_COORDINATOR", "FFMPEG_CONTAINER", "JOBS_QUEUE", "DB", "BUCKET"])
      expect(output).toContain(binding);
    expect(output).toMatch(/--dry-run: exiting now/);
  });
});
