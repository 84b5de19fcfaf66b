import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";

/*
 * Tests a newcomer can find. A module's test is named after it (`<module>.test.ts`, in the folder of the
 * runtime it needs), so the name alone must lead to one file: no two test files under test/ share a base
 * name, whatever their folders (two `presets.test.ts` leave a reader guessing which tests what), and no
 * support file under test/ is named like a module of src/ or container/src/ (a search for
 * `runner-client.ts` must find the module, not a test helper).
 */
const root = join(import.meta.dirname, "../..");

const TEST_FILE = /\.test\.[cm]?[jt]s$/;
const CODE_FILE = /\.[cm]?[jt]s$/;

/** Files under these folders that git tracks or would track (new ones too), without installed packages. */
function listed(...folders: string[]): string[] {
  const out = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "--", ...folders], {
    cwd: root,
    encoding: "utf8",
  });
  return [...new Set(out.split("\n"))].filter(
    (f) => CODE_FILE.test(f) && !f.includes("node_modules/") && existsSync(join(root, f)),
  );
}

/**
 * The name a file is found by: its base name without `.test.ts` or `.ts`. A declaration file keeps its
 * `.d` (`env.d.ts` declares types for `env.ts`, it is not another `env.ts`).
 */
function baseName(path: string): string {
  return basename(path).replace(TEST_FILE, "").replace(CODE_FILE, "");
}

/** Every group of test files that share a base name. */
function sharedBaseNames(testFiles: string[]): string[][] {
  const byName = new Map<string, string[]>();
  for (const path of testFiles) byName.set(baseName(path), [...(byName.get(baseName(path)) ?? []), path]);
  return [...byName.values()].filter((paths) => paths.length > 1);
}

/** Every support file named like a module, with that module. */
function supportNamedLikeModules(supportFiles: string[], modules: string[]): [string, string][] {
  const moduleByName = new Map(modules.map((m) => [baseName(m), m]));
  return supportFiles.flatMap((s) => {
    const module = moduleByName.get(baseName(s));
    return module ? [[s, module] as [string, string]] : [];
  });
}

describe("the test tree's names", () => {
  const underTest = listed("test");
  const testFiles = underTest.filter((f) => TEST_FILE.test(f));
  const supportFiles = underTest.filter((f) => !TEST_FILE.test(f));

  it("give no two test files the same base name", () => {
    expect(testFiles.length).toBeGreaterThan(100);
    expect(sharedBaseNames(testFiles)).toEqual([]);
  });

  it("give no support file the name of a module of src/ or container/src/", () => {
    const modules = listed("src", "container/src");
    expect(modules.length).toBeGreaterThan(100);
    expect(supportNamedLikeModules(supportFiles, modules)).toEqual([]);
  });

  it("tell a clash from what is allowed", () => {
    expect(
      sharedBaseNames(["test/unit/presets.test.ts", "test/e2e/presets.test.ts", "test/unit/placeholders.test.ts"]),
    ).toEqual([["test/unit/presets.test.ts", "test/e2e/presets.test.ts"]]);
    expect(sharedBaseNames(["test/unit/split-plan.test.ts", "test/runner/split-plan-ffmpeg.test.ts"])).toEqual([]);
    const modules = ["src/runner/runner-client.ts", "src/env.ts", "container/src/probe.ts"];
    expect(
      supportNamedLikeModules(
        ["test/runner/runner-client.ts", "test/worker/env.d.ts", "test/runner/runner-api.ts", "test/support/probe.mjs"],
        modules,
      ),
    ).toEqual([
      ["test/runner/runner-client.ts", "src/runner/runner-client.ts"],
      ["test/support/probe.mjs", "container/src/probe.ts"],
    ]);
  });
});
