import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { TestRun } from "../test/suites.ts";
import { projectRoot, wranglerEnv } from "./wrangler.ts";

export type Tally = { passed: number; failed: number; skipped: number };

/** The shape of the line CI sums (.ci/run): "P passed, F failed, S skipped". */
export const tallyLine = (t: Tally) => `${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped`;

export const sumTallies = (tallies: Tally[]): Tally =>
  tallies.reduce(
    (a, t) => ({ passed: a.passed + t.passed, failed: a.failed + t.failed, skipped: a.skipped + t.skipped }),
    { passed: 0, failed: 0, skipped: 0 },
  );

/**
 * Runs one vitest invocation as test/suites.ts declares it (`extraArgs`, files or -t, pass on to vitest),
 * with its output on the terminal, and counts its tests from vitest's JSON report.
 */
export function runVitest(run: TestRun, extraArgs: readonly string[] = []): Tally {
  const reportDir = join(projectRoot, ".cache");
  const report = join(reportDir, "vitest-report.json");
  mkdirSync(reportDir, { recursive: true });
  rmSync(report, { force: true });
  const argv = [
    "run",
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${report}`,
    ...run.projects.flatMap((p) => ["--project", p]),
    ...(run.exclude ?? []).flatMap((f) => ["--exclude", f]),
    ...(run.testNamePattern ? ["-t", run.testNamePattern] : []),
    ...(run.files ?? []),
    ...extraArgs,
  ];
  // wranglerEnv sets CI=true to keep wrangler quiet, so whether this run is CI is passed on apart: there
  // the container suite must run, not skip.
  const containers: Record<string, string> = run.containers
    ? { FFJOBS_CONTAINER_SUITE: "1", FFJOBS_CONTAINERS_REQUIRED: process.env.CI ? "1" : "" }
    : {};
  const env = wranglerEnv({ ...run.env, ...containers });
  const vitest = spawnSync(join(projectRoot, "node_modules", ".bin", "vitest"), argv, {
    cwd: projectRoot,
    stdio: "inherit",
    env,
  });
  return tallyOf(report, vitest.status);
}

/** The report's counts; a run that failed without a failing test (a crash, an error outside tests) counts as one failure. */
function tallyOf(report: string, status: number | null): Tally {
  try {
    const r = JSON.parse(readFileSync(report, "utf8")) as {
      numPassedTests: number;
      numFailedTests: number;
      numPendingTests: number;
      numTodoTests: number;
    };
    const failed = r.numFailedTests + (status !== 0 && r.numFailedTests === 0 ? 1 : 0);
    return { passed: r.numPassedTests, failed, skipped: r.numPendingTests + r.numTodoTests };
  } catch {
    // no report: vitest itself failed to start, and said why above
    return { passed: 0, failed: 1, skipped: 0 };
  }
}
