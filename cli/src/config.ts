import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export type CliConfig = { url: string; apiKey: string };

/** Where the CLI looks for settings when the environment has none: `{ "url": …, "apiKey": … }`. */
export const CONFIG_FILE = join(process.env.XDG_CONFIG_HOME || join(homedir(), ".config"), "ffjobs", "config.json");

/** FFJOBS_URL and FFJOBS_API_KEY, else the config file; a clear message when either is missing. */
export function readCliConfig(env: NodeJS.ProcessEnv = process.env): CliConfig {
  let file: Partial<CliConfig> = {};
  try {
    file = JSON.parse(readFileSync(env.FFJOBS_CONFIG || CONFIG_FILE, "utf8")) as Partial<CliConfig>;
  } catch {
    // no config file: the environment must say it all
  }
  const url = env.FFJOBS_URL || file.url;
  const apiKey = env.FFJOBS_API_KEY || file.apiKey;
  const missing = [!url && "FFJOBS_URL", !apiKey && "FFJOBS_API_KEY"].filter(Boolean);
  if (missing.length) {
    throw new Error(
      `ffjobs: set ${missing.join(" and ")} (the service's base URL and an API key), or write them to ${CONFIG_FILE} as {"url": "...", "apiKey": "..."}`,
    );
  }
  return { url: url!, apiKey: apiKey! };
}
