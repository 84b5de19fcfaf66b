// npm run deploy: applies the remote D1 migrations, then deploys the Worker and its container.
import { spawnSync } from "node:child_process";
import { buildDashboardClient } from "./build-dashboard.ts";
import { join } from "node:path";
import { projectRoot, wranglerEnv } from "./wrangler.ts";

const wrangler = join(projectRoot, "node_modules", ".bin", "wrangler");
// Deploys talk to Cloudflare, so metrics stay off but CI mode is not forced.
const env = { ...wranglerEnv(), CI: process.env.CI ?? "" };
buildDashboardClient();
for (const args of [["d1", "migrations", "apply", "DB", "--remote"], ["deploy", ...process.argv.slice(2)]]) {
  const r = spawnSync(wrangler, args, { cwd: projectRoot, stdio: "inherit", env });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
