// The images the lab needs and cannot pull: the runner Dockerfile's base (Debian from the apt
// mirror this machine uses, plus Node 24 from the npm registry) and the egress sidecar double.
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { LAB, log, need } from "./lab-paths.ts";

const APT_SOURCES = "/etc/apt/sources.list.d/debian.sources";

function docker(args: string[], opts: { input?: Buffer; env?: NodeJS.ProcessEnv } = {}): string {
  return execFileSync(LAB.docker, ["-H", LAB.dockerHost, ...args], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    ...opts,
  });
}

export function imageExists(tag: string): boolean {
  return spawnSync(LAB.docker, ["-H", LAB.dockerHost, "image", "inspect", tag], { stdio: "ignore" }).status === 0;
}

/** The apt mirror this machine's own sources name: the only Debian mirror known to be reachable. */
function aptMirror(): string {
  need(existsSync(APT_SOURCES), `${APT_SOURCES} is missing: the lab reads this machine's Debian mirror from it`);
  const uri = /^URIs:\s*(\S+)/m.exec(readFileSync(APT_SOURCES, "utf8"));
  need(uri !== null, `no URIs line in ${APT_SOURCES}`);
  return uri[1];
}

/** `node:24-bookworm-slim` without Docker Hub: debootstrap + the npm registry's Linux Node binary. */
export function ensureBaseImage(node24: string): void {
  if (imageExists(LAB.baseImage)) return;
  need(existsSync("/usr/sbin/debootstrap"), "debootstrap is not installed: apt-get install debootstrap");
  const rootfs = mkdtempSync(join(LAB.dir, "rootfs-"));
  try {
    log(`making ${LAB.baseImage} offline with debootstrap (about 30 s) ...`);
    execFileSync("/usr/sbin/debootstrap", ["--variant=minbase", "bookworm", rootfs, aptMirror()], {
      stdio: ["ignore", "ignore", "inherit"],
    });
    rmSync(join(rootfs, "etc/apt/sources.list"), { force: true });
    copyFileSync(APT_SOURCES, join(rootfs, "etc/apt/sources.list.d/debian.sources"));
    copyFileSync(node24, join(rootfs, "usr/local/bin/node"));
    rmSync(join(rootfs, "var/cache/apt/archives"), { recursive: true, force: true });
    const tar = execFileSync("tar", ["-C", rootfs, "-c", "."], { maxBuffer: 2 * 1024 ** 3 });
    docker(
      [
        "import",
        "-c",
        "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "-c",
        'CMD ["node"]',
        "-",
        LAB.baseImage,
      ],
      { input: tar },
    );
  } finally {
    rmSync(rootfs, { recursive: true, force: true });
  }
}

/** The egress sidecar double, tagged by a hash of its sources so an edit rebuilds it. */
export function ensureSidecarImage(): string {
  const folder = join(LAB.source, "egress-sidecar");
  const hash = createHash("sha256");
  for (const f of readdirSync(folder).sort()) hash.update(f).update(readFileSync(join(folder, f)));
  const tag = `ffjobs-lab/egress-sidecar:${hash.digest("hex").slice(0, 12)}`;
  if (imageExists(tag)) return tag;
  log(`building the egress sidecar double (${tag}) ...`);
  docker(["build", "-q", "-t", tag, folder], { env: { ...process.env, DOCKER_BUILDKIT: "0" } });
  return tag;
}
