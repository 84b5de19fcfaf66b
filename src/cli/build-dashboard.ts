import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { projectRoot } from "./wrangler.ts";

/** Where the dashboard's static files are served from (wrangler.toml `[assets]`). */
export const DASHBOARD_CLIENT_DIR = join(projectRoot, "dashboard/public/dashboard/client");

/**
 * The dashboard runs the typed client in the browser: compile client/src into the dashboard's assets
 * (git-ignored) before `wrangler dev`, the tests and a deploy serve them.
 */
export function buildDashboardClient(): void {
  const tsc = spawnSync(process.execPath, [join(projectRoot, "node_modules/typescript/bin/tsc"), "-p", join(projectRoot, "client/tsconfig.json"), "--outDir", DASHBOARD_CLIENT_DIR, "--declaration", "false"], {
    cwd: projectRoot, encoding: "utf8",
  });
  if (tsc.status !== 0) throw new Error(`building the dashboard's client failed:\n${tsc.stdout}${tsc.stderr}`);
}
