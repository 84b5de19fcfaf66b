// npm test: type-checks both halves (Worker and runner), checks format and lint, builds the dashboard's
// client, then runs the fast loop test/suites.ts declares (unit, runner, worker and the end-to-end slice)
// and ends with one "Tests: P passed, F failed, S skipped" line. `--slow` (npm run test:slow) runs the slow runs instead, one
// after another whatever fails, and `--containers` (npm run test:containers) only the container suite.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { CONTAINER_RUN, FAST_RUN, SLOW_RUNS } from "../test/suites.ts";
import { buildDashboardClient } from "./build-dashboard.ts";
import { runVitest, sumTallies, tallyLine } from "./test-runs.ts";
import { projectRoot } from "./wrangler.ts";

const flags = new Set(["--slow", "--containers"]);
const args = process.argv.slice(2);
const slow = args.includes("--slow");
// Further arguments (files, -t) pass on to vitest, in the fast loop and the container suite (CI once ran
// part of it again that way); the slow runs each name their own files.
const vitestArgs = args.filter((a) => !flags.has(a));
if (slow && vitestArgs.length > 0) {
  console.error(
    "npm run test:slow takes no arguments; run one slow file with: npx vitest run --project <project> <file>",
  );
  process.exit(2);
}

for (const project of ["tsconfig.json", "container/tsconfig.json"]) {
  const tsc = spawnSync(join(projectRoot, "node_modules", ".bin", "tsc"), ["--noEmit", "-p", project], {
    cwd: projectRoot,
    stdio: "inherit",
  });
  if (tsc.status !== 0) {
    console.log(`Type check of ${project} failed.\nTests: 0 passed, 1 failed, 0 skipped`);
    process.exit(1);
  }
}

// The formatter and linter (biome.jsonc, `npm run lint`): a finding, a warning included, fails the loop as a
// type error does. Seconds on the whole tree, so the slow runs skip it (CI runs npm test first).
if (!slow) {
  const lint = spawnSync(join(projectRoot, "node_modules", ".bin", "biome"), ["check", "--error-on-warnings"], {
    cwd: projectRoot,
    stdio: "inherit",
  });
  if (lint.status !== 0) {
    console.log(
      "Lint or format check failed (npm run lint; npm run format rewrites the layout).\nTests: 0 passed, 1 failed, 0 skipped",
    );
    process.exit(1);
  }
}

buildDashboardClient();

const runs = slow ? SLOW_RUNS : [args.includes("--containers") ? CONTAINER_RUN : FAST_RUN];
const tallies = runs.map((run) => runVitest(run, vitestArgs));
if (runs.length > 1) {
  console.log("");
  for (const [i, run] of runs.entries()) console.log(`  ${run.name}: ${tallyLine(tallies[i])}`);
}
const total = sumTallies(tallies);
console.log(`\nTests: ${tallyLine(total)}`);
process.exit(total.failed > 0 ? 1 : 0);
