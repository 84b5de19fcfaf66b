// dockerd's default OCI runtime in the lab: runc, except that an app container asking for the
// bubblewrap sandbox (RUNNER_SANDBOX=on or namespaces in its environment) runs without Docker's seccomp profile
// and with /proc unmasked, which is what bubblewrap needs for user namespaces — the equivalent of
// `--security-opt seccomp=unconfined --security-opt systempaths=unconfined`, which workerd's
// container client cannot ask for. Production containers are VMs; this stands in for a host that
// allows user namespaces. A file named `confine-all` next to this runtime's state turns it off, so
// tests can show what happens on a host that does not (the runner falls back to its uid isolation,
// or with RUNNER_SANDBOX=namespaces fails jobs SANDBOX_UNAVAILABLE).
// It also tells each egress sidecar double how to answer DNS: the mode in a file `dns-mode` there
// (placeholder, public or private; lab/egress-sidecar/dns.ts), read as the sidecar is created.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const RUNC = "/usr/sbin/runc";
const args = process.argv.slice(2);
const command = args.find((a) => a === "create" || a === "run");
const bundleAt = args.findIndex((a) => a === "--bundle" || a === "-b");
const labDir = process.env.FFJOBS_LAB_DIR ?? "/var/lib/ffjobs-lab";

const modeFile = join(labDir, "dns-mode");
if (command && bundleAt >= 0) {
  const configPath = join(args[bundleAt + 1], "config.json");
  const config = JSON.parse(readFileSync(configPath, "utf8"));
  const env: string[] = config.process?.env ?? [];
  const isSidecar = (config.process?.args ?? []).includes("/sidecar/sidecar.ts");
  if (isSidecar && existsSync(modeFile)) {
    config.process.env = [...env, `SIDECAR_DNS_MODE=${readFileSync(modeFile, "utf8").trim()}`];
    writeFileSync(configPath, JSON.stringify(config));
  }
  const unconfine =
    !existsSync(join(labDir, "confine-all")) &&
    (env.includes("RUNNER_SANDBOX=on") || env.includes("RUNNER_SANDBOX=namespaces"));
  if (unconfine && config.linux) {
    delete config.linux.seccomp;
    config.linux.maskedPaths = [];
    config.linux.readonlyPaths = [];
    writeFileSync(configPath, JSON.stringify(config));
  }
}
process.exit(spawnSync(RUNC, args, { stdio: "inherit" }).status ?? 1);
