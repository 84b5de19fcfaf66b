import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { projectRoot } from "./wrangler.ts";

/** Where the dashboard's static files are served from (wrangler.toml `[assets]`). */
export const DASHBOARD_CLIENT_DIR = join(projectRoot, "dashboard/public/dashboard/client");

/** Third-party code the dashboard serves itself (its CSP allows scripts from its own origin only). */
const DASHBOARD_VENDOR_DIR = join(projectRoot, "dashboard/public/dashboard/vendor");

/**
 * The dashboard runs the typed client in the browser: compile client/src into the dashboard's assets
 * (git-ignored) before `wrangler dev`, the tests and a deploy serve them; beside it, hls.js, which plays
 * HLS outputs in browsers without native HLS (loaded only by a job page with a playlist to show).
 */
export function buildDashboardClient(): void {
  const tsc = spawnSync(
    process.execPath,
    [
      join(projectRoot, "node_modules/typescript/bin/tsc"),
      "-p",
      join(projectRoot, "client/tsconfig.json"),
      "--outDir",
      DASHBOARD_CLIENT_DIR,
      "--declaration",
      "false",
    ],
    {
      cwd: projectRoot,
      encoding: "utf8",
    },
  );
  if (tsc.status !== 0) throw new Error(`building the dashboard's client failed:\n${tsc.stdout}${tsc.stderr}`);
  mkdirSync(DASHBOARD_VENDOR_DIR, { recursive: true });
  copyFileSync(join(projectRoot, "node_modules/hls.js/dist/hls.min.js"), join(DASHBOARD_VENDOR_DIR, "hls.min.js"));
}
