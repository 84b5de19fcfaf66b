#!/usr/bin/env node
// `npx ffjobs …` in this repository: runs the CLI (cli/src/main.ts) on Node 24 through the same
// bootstrap as `npm run dev` (which installs Node 24 when this Node cannot run TypeScript).
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const r = spawnSync(process.execPath, [join(root, "scripts/bootstrap.mjs"), "ffjobs", ...process.argv.slice(2)], {
  stdio: "inherit",
});
process.exit(r.status ?? 1);
