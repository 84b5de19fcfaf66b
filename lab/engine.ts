// The lab's Docker engine: Debian's dockerd on a socket of its own, with the lab's runtime and a
// bridge subnet nothing else on the machine uses. Started once and left running (`stopEngine`).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LAB, log, need } from "./lab-paths.ts";

/** The default bridge: a /24 of its own, so the lab's containers never share a range with the host. */
const BRIDGE_GATEWAY_CIDR = "172.31.213.1/24";
const ENGINE_READY_TIMEOUT_MS = 60_000;

export function engineAnswers(): boolean {
  return engineRemapsUsers() !== null;
}

/** Whether the running engine remaps user namespaces; null when none answers. */
function engineRemapsUsers(): boolean | null {
  const info = spawnSync(LAB.docker, ["-H", LAB.dockerHost, "info", "--format", "{{json .SecurityOptions}}"], {
    encoding: "utf8",
    timeout: 10_000,
  });
  return info.status === 0 ? info.stdout.includes("name=userns") : null;
}

async function stopRunningEngine(): Promise<void> {
  const pid = stopEngine();
  const alive = () => {
    if (pid === null) return false;
    try {
      // Signal 0 only asks whether the process exists: it throws when it does not.
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const deadline = Date.now() + ENGINE_READY_TIMEOUT_MS;
  while (engineAnswers() || alive()) {
    need(Date.now() < deadline, "the lab's dockerd did not stop");
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** Writes the runtime launcher dockerd calls (it must exist before dockerd starts). */
function writeRuntimeLauncher(node: string): string {
  const bin = join(LAB.dir, "bin");
  mkdirSync(bin, { recursive: true });
  const launcher = join(bin, "runc-unconfine");
  writeFileSync(
    launcher,
    `#!/bin/sh\nFFJOBS_LAB_DIR='${LAB.dir}' exec '${node}' '${join(LAB.source, "runc-unconfine.ts")}' "$@"\n`,
    { mode: 0o755 },
  );
  return launcher;
}

export async function startEngine(node: string): Promise<void> {
  const remaps = engineRemapsUsers();
  if (remaps === LAB.userns) return;
  // One engine owns the lab's bridge: the other mode's is stopped first (its images stay).
  if (remaps !== null) await stopRunningEngine();
  need(existsSync(LAB.dockerd), `dockerd is not installed (${LAB.dockerd}): apt-get install docker.io`);
  const runtime = writeRuntimeLauncher(node);
  mkdirSync(LAB.dir, { recursive: true });
  const out = openSync(join(LAB.dir, "dockerd.log"), "a");
  log(
    `starting dockerd (data in ${LAB.dir}/docker, socket ${LAB.dockerHost}${LAB.userns ? ", user namespaces remapped" : ""}) ...`,
  );
  const dockerd = spawn(
    LAB.dockerd,
    [
      "--host",
      LAB.dockerHost,
      "--data-root",
      join(LAB.dir, "docker"),
      "--exec-root",
      join(LAB.dir, "exec"),
      "--pidfile",
      join(LAB.dir, "dockerd.pid"),
      "--bip",
      BRIDGE_GATEWAY_CIDR,
      "--add-runtime",
      `ffjobs-lab=${runtime}`,
      "--default-runtime",
      "ffjobs-lab",
      ...(LAB.userns ? ["--userns-remap", "default"] : []),
    ],
    { detached: true, stdio: ["ignore", out, out] },
  );
  dockerd.unref();
  const deadline = Date.now() + ENGINE_READY_TIMEOUT_MS;
  while (!engineAnswers()) {
    if (dockerd.exitCode !== null || Date.now() > deadline) {
      throw new Error(
        `dockerd did not start; its log (${LAB.dir}/dockerd.log) ends:\n${readFileSync(join(LAB.dir, "dockerd.log"), "utf8").slice(-2000)}`,
      );
    }
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** Stops the lab's dockerd (and with it every lab container); returns its pid, if it had one. */
export function stopEngine(): number | null {
  const pidFile = join(LAB.dir, "dockerd.pid");
  if (!existsSync(pidFile)) return null;
  const pid = Number(readFileSync(pidFile, "utf8"));
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    // already gone
  }
  return pid;
}
