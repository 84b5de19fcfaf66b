// npm test: type-checks both halves (Worker and runner), then runs every vitest project
// (unit, runner, worker, e2e) and ends with one "N passed, N failed" line.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { projectRoot, wranglerEnv } from "./wrangler.ts";
import { buildDashboardClient } from "./build-dashboard.ts";

const bin = (name: string) => join(projectRoot, "node_modules", ".bin", name);
// `--containers` (npm run test:containers): only the container suite, on real containers.
const containers = process.argv.includes("--containers");
// wranglerEnv sets CI=true to keep wrangler quiet, so whether this run is CI is passed on apart:
// there the container suite must run, not skip.
const env = wranglerEnv(containers ? { FFJOBS_CONTAINER_SUITE: "1", FFJOBS_CONTAINERS_REQUIRED: process.env.CI ? "1" : "" } : {});
// Further arguments pass on to vitest either way (files, -t): CI runs part of the container suite again
// under user-namespace remapping (FFJOBS_LAB_USERNS=1, lab/README.md).
const vitestArgs = containers ? ["--project", "container", ...process.argv.slice(2).filter((a) => a !== "--containers")] : process.argv.slice(2);

for (const project of ["tsconfig.json", "container/tsconfig.json"]) {
  const tsc = spawnSync(bin("tsc"), ["--noEmit", "-p", project], { cwd: projectRoot, stdio: "inherit", env });
  if (tsc.status !== 0) {
    console.log(`Type check of ${project} failed.\n0 passed, 1 failed`);
    process.exit(1);
  }
}

buildDashboardClient();

const reportDir = join(projectRoot, ".cache");
const report = join(reportDir, "vitest-report.json");
mkdirSync(reportDir, { recursive: true });
rmSync(report, { force: true });
const vitest = spawnSync(
  bin("vitest"),
  ["run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...vitestArgs],
  { cwd: projectRoot, stdio: "inherit", env },
);

let summary = "0 passed, 1 failed";
try {
  const r = JSON.parse(readFileSync(report, "utf8")) as { numPassedTests: number; numFailedTests: number; numPendingTests: number; numTodoTests: number };
  const failed = r.numFailedTests + (vitest.status !== 0 && r.numFailedTests === 0 ? 1 : 0);
  summary = `${r.numPassedTests} passed, ${failed} failed, ${r.numPendingTests + r.numTodoTests} skipped`;
} catch {
  // no report: vitest itself failed to start; the summary above says so
}
console.log(`\nTests: ${summary}`);
process.exit(vitest.status ?? 1);
