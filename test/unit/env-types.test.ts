import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");

describe("the Worker's Env type", () => {
  it("is generated from wrangler.toml and up to date (npm run types regenerates it)", () => {
    const args = JSON.parse(
      spawnSync("node", ["-p", "JSON.stringify(require('./package.json').scripts.types)"], {
        cwd: root,
        encoding: "utf8",
      }).stdout,
    ) as string;
    const [bin, ...rest] = args.split(" ");
    const check = spawnSync(resolve(root, "node_modules/.bin", bin), [...rest, "--check"], {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    });
    expect(check.status, `${check.stdout}\n${check.stderr}`).toBe(0);
  }, 30_000);
});
