import { spawn, spawnSync, type SpawnOptions } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";

export const projectRoot = resolve(import.meta.dirname, "..");
const wranglerBin = join(projectRoot, "node_modules", ".bin", "wrangler");

/**
 * Keeps wrangler offline-friendly (no metrics, error reports or Cloudflare fetches from a machine that may
 * have no network) and its config and logs inside the project's git-ignored .wrangler/ folder.
 */
export function wranglerEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const home = join(projectRoot, ".wrangler", "home");
  mkdirSync(home, { recursive: true });
  return {
    ...process.env,
    WRANGLER_SEND_METRICS: "false",
    WRANGLER_SEND_ERROR_REPORTS: "false",
    WRANGLER_HIDE_BANNER: "true",
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
    CI: process.env.CI ?? "true",
    XDG_CONFIG_HOME: home,
    WRANGLER_LOG_PATH: join(home, "logs"),
    ...extra,
  };
}

/** Runs wrangler to completion; throws with its output when it fails. */
export function wrangler(args: string[], opts: { quiet?: boolean } = {}): string {
  const r = spawnSync(wranglerBin, args, { cwd: projectRoot, env: wranglerEnv(), encoding: "utf8" });
  if (r.status !== 0) throw new Error(`wrangler ${args.join(" ")} failed:\n${r.stdout}\n${r.stderr}`);
  if (!opts.quiet) process.stderr.write(r.stderr);
  return r.stdout;
}

export function spawnWrangler(args: string[], opts: SpawnOptions = {}) {
  return spawn(wranglerBin, args, { cwd: projectRoot, env: wranglerEnv(), ...opts });
}

/** SQL string literal; only for values the CLI itself produced or checked. */
export function sqlString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}
