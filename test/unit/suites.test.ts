import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FAST_RUN, SLOW_FILES, SLOW_RUNS, type TestRun } from "../suites.ts";

/*
 * test/suites.ts splits the tests between npm test and npm run test:slow. CI runs both, so every test
 * file must be in exactly one of them: a file in neither would never run, one in both would run twice
 * (and the fast loop would be slower than it need be). A project named P runs test/P/ (vitest.config.ts).
 */
const root = join(import.meta.dirname, "../..");

/** Every test file under test/, as a path from the repository's root. */
function testFiles(): string[] {
  return (readdirSync(join(root, "test"), { recursive: true }) as string[])
    .filter((f) => /\.test\.[cm]?[jt]s$/.test(f) && !f.split("/").includes("node_modules"))
    .map((f) => `test/${f}`);
}

/** Whether a run selects a file: its project's folder, within the run's filters, not excluded. */
function selects(run: TestRun, file: string): boolean {
  const inProject = run.projects.some((p) => file.startsWith(`test/${p}/`));
  const filtered = !run.files || run.files.some((f) => file.startsWith(f));
  return inProject && filtered && !run.exclude?.includes(file);
}

/** The runs of each file, leaving out a run of some tests again (-t) under other conditions. */
function runsOf(runs: readonly TestRun[], files: string[]): Map<string, string[]> {
  const whole = runs.filter((r) => !r.testNamePattern);
  return new Map(files.map((f) => [f, whole.filter((r) => selects(r, f)).map((r) => r.name)]));
}

describe("the split between npm test and npm run test:slow", () => {
  it("names only files that exist", () => {
    const named = [...Object.keys(SLOW_FILES), ...SLOW_RUNS.flatMap((r) => r.files ?? [])];
    expect(named.filter((f) => !existsSync(join(root, f)))).toEqual([]);
  });

  it("runs every test file exactly once", () => {
    const files = testFiles();
    expect(files.length).toBeGreaterThan(100);
    const notOnce = [...runsOf([FAST_RUN, ...SLOW_RUNS], files)].filter(([, runs]) => runs.length !== 1);
    expect(notOnce).toEqual([]);
  });

  it("tells a file run twice or never from one run once", () => {
    const runs: TestRun[] = [
      { name: "fast", projects: ["unit", "runner"], exclude: ["test/runner/slow.test.ts"] },
      { name: "slow", projects: ["runner", "e2e"], files: ["test/runner/slow.test.ts", "test/runner/twice.test.ts"] },
      { name: "again", projects: ["runner"], testNamePattern: "some" },
    ];
    const files = [
      "test/unit/a.test.ts",
      "test/runner/slow.test.ts",
      "test/runner/twice.test.ts",
      "test/faults/never.test.ts",
    ];
    expect(Object.fromEntries(runsOf(runs, files))).toEqual({
      "test/unit/a.test.ts": ["fast"],
      "test/runner/slow.test.ts": ["slow"],
      "test/runner/twice.test.ts": ["fast", "slow"],
      "test/faults/never.test.ts": [],
    });
  });
});
