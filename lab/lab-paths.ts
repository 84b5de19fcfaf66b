// Where the lab lives and what it runs. Root only: it starts its own dockerd.
import { join, resolve } from "node:path";

const dir = process.env.FFJOBS_LAB_DIR || "/var/lib/ffjobs-lab";

export const LAB = {
  /** Engine data, images and state; outside the work tree so every clone reuses the images. */
  dir,
  dockerHost: `unix://${join(dir, "docker.sock")}`,
  /** Debian's docker.io client (the machine may have a newer client elsewhere on PATH). */
  docker: "/usr/bin/docker",
  dockerd: "/usr/sbin/dockerd",
  source: resolve(import.meta.dirname),
  /**
   * FFJOBS_LAB_USERNS=1: the engine remaps every container's root to an unprivileged range of this
   * machine (`--userns-remap=default`), as rootless hosts do; its images live apart from the default's.
   */
  userns: process.env.FFJOBS_LAB_USERNS === "1",
  /** The image container/Dockerfile starts FROM, made offline when Docker Hub is out of reach. */
  baseImage: "node:24-bookworm-slim",
};

export function log(message: string): void {
  console.error(`[ffjobs lab] ${message}`);
}

export function need(ok: boolean, message: string): asserts ok {
  if (!ok) throw new Error(message);
}
