import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const BIOME_TIMEOUT_MS = 60_000;
/** A folder of each kind the config lints: a rule switched off for one of them shows here. */
const LINTED_FOLDERS = [
  "src/jobs",
  "container/src",
  "test/support",
  "scripts",
  "lab",
  "cli/src",
  "client/src",
  "bench",
];

type Diagnostic = { category: string; severity: string; location: { path: string } };

/**
 * The project's Biome config, copied as it is (with the .gitignore it reads) into a scratch tree laid out
 * like the project's, then run on small modules written there: what the config does to code, whatever
 * its options say. A config that drops the cycle rule, lowers it below an error, lets type-only imports
 * through or stops linting a folder fails here.
 */
describe("the linter's configuration", () => {
  let scratch: string;
  let cycleReports: Diagnostic[];

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), "ffjobs-lint-"));
    const config = ["biome.json", "biome.jsonc"].find((name) => existsSync(join(root, name)));
    if (!config) throw new Error("no biome.json or biome.jsonc at the project root");
    copyFileSync(join(root, config), join(scratch, config));
    copyFileSync(join(root, ".gitignore"), join(scratch, ".gitignore"));
    for (const folder of LINTED_FOLDERS) {
      // Two modules that need only each other's types: the cycle the compiler erases and the rule must not.
      write(
        `${folder}/job-view.ts`,
        'import type { JobRow } from "./job-row.ts";\nexport type JobView = { row: JobRow };\n',
      );
      write(
        `${folder}/job-row.ts`,
        'import type { JobView } from "./job-view.ts";\nexport type JobRow = { view?: JobView };\n',
      );
    }
    // Values both ways: the cycle that leaves an import undefined while its module loads.
    write("src/limits.ts", 'import { clamp } from "./clamp.ts";\nexport const MAX_FILES = clamp(5000);\n');
    write(
      "src/clamp.ts",
      'import { MAX_FILES } from "./limits.ts";\nexport const clamp = (n: number): number => Math.min(n, MAX_FILES);\n',
    );
    // One direction only: no cycle, nothing to report.
    write("src/units.ts", "export const SECOND_MS = 1000;\n");
    write("src/timeouts.ts", 'import { SECOND_MS } from "./units.ts";\nexport const POLL_MS = 5 * SECOND_MS;\n');
    cycleReports = lint(scratch).filter((d) => d.category === "lint/suspicious/noImportCycles");
  }, BIOME_TIMEOUT_MS);

  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  function write(path: string, text: string): void {
    mkdirSync(dirname(join(scratch, path)), { recursive: true });
    writeFileSync(join(scratch, path), text);
  }

  const reported = (path: string) => cycleReports.filter((d) => d.location.path === path);

  it.each(LINTED_FOLDERS)("refuses a cycle of type-only imports in %s, as an error", (folder) => {
    for (const file of ["job-view.ts", "job-row.ts"]) {
      expect(reported(`${folder}/${file}`).map((d) => d.severity)).toEqual(["error"]);
    }
  });

  it("refuses a cycle of value imports", () => {
    expect(reported("src/limits.ts").map((d) => d.severity)).toEqual(["error"]);
    expect(reported("src/clamp.ts").map((d) => d.severity)).toEqual(["error"]);
  });

  it("leaves imports that go one way alone", () => {
    expect([...reported("src/units.ts"), ...reported("src/timeouts.ts")]).toEqual([]);
  });
});

/** Biome's lint of a whole tree, as `npm run lint` runs it, its findings read from the JSON reporter. */
function lint(cwd: string): Diagnostic[] {
  const run = spawnSync(join(root, "node_modules/.bin/biome"), ["lint", "--reporter=json", "--max-diagnostics=none"], {
    cwd,
    encoding: "utf8",
    timeout: BIOME_TIMEOUT_MS,
  });
  if (!run.stdout.trim().startsWith("{"))
    throw new Error(`biome lint printed no report (exit ${run.status}): ${run.stderr}`);
  return (JSON.parse(run.stdout) as { diagnostics: Diagnostic[] }).diagnostics;
}
