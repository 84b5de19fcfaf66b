// Runs wrangler against the real account for `npm run deploy` and `npm run smoke`.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { projectRoot, wranglerEnv } from "../wrangler.ts";

export type WranglerResult = { status: number; stdout: string; stderr: string };

/**
 * One wrangler invocation. `show` streams its output to the terminal (the deploy's build and upload
 * take minutes and say what they do); otherwise output is captured for parsing.
 */
export type RunWrangler = (args: string[], opts?: { show?: boolean; env?: Record<string, string> }) => WranglerResult;

const wranglerBin = join(projectRoot, "node_modules", ".bin", "wrangler");

/**
 * The project's quiet settings (no metrics, banner, error reports), except two things a deploy needs
 * from the person's own environment: the config home where `wrangler login` stored its token (the
 * project's dev/test runs point XDG_CONFIG_HOME inside the repo, where no login exists), and CI mode
 * (left as the user has it, so wrangler may ask for a confirmation in a terminal).
 */
export function deployEnv(): NodeJS.ProcessEnv {
  const env = wranglerEnv({ CI: process.env.CI ?? "" });
  if (process.env.XDG_CONFIG_HOME === undefined) delete env.XDG_CONFIG_HOME;
  else env.XDG_CONFIG_HOME = process.env.XDG_CONFIG_HOME;
  if (!env.CI) delete env.CI;
  return env;
}

export function realWrangler(): RunWrangler {
  return (args, opts = {}) => {
    const r = spawnSync(wranglerBin, args, {
      cwd: projectRoot,
      env: { ...deployEnv(), ...opts.env },
      encoding: "utf8",
      stdio: opts.show ? ["inherit", "inherit", "inherit"] : ["ignore", "pipe", "pipe"],
    });
    return { status: r.status ?? 1, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
  };
}
