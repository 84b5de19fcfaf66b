import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { generateTypes } from "../../client/scripts/generate-types.ts";

const root = resolve(import.meta.dirname, "../..");

describe("the typed client", () => {
  it("has the types the service's OpenAPI document gives (npm run client:types regenerates them)", async () => {
    expect(readFileSync(resolve(root, "client/src/api-types.ts"), "utf8")).toBe(await generateTypes());
  });

  it("builds as a package of its own (what npm pack would publish)", () => {
    const tsc = spawnSync(
      process.execPath,
      [resolve(root, "node_modules/typescript/bin/tsc"), "-p", "client/tsconfig.json", "--noEmit"],
      { cwd: root, encoding: "utf8" },
    );
    expect(tsc.status, tsc.stdout + tsc.stderr).toBe(0);
  }, 60_000);
});
