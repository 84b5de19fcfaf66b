import { execFileSync } from "node:child_process";
import { LAB } from "../../lab/lab-paths.ts";

/** The lab engine's docker CLI, for what a test does to containers from outside (kill, exec). */
export function labDocker(args: string[], opts: { timeoutMs?: number } = {}): string {
  return execFileSync(LAB.docker, ["-H", LAB.dockerHost, ...args], {
    encoding: "utf8",
    timeout: opts.timeoutMs ?? 60_000,
  });
}

/** Running runner containers (workerd names them workerd-…; their sidecars end in -proxy). */
export function runningRunnerContainers(): string[] {
  return labDocker(["ps", "--filter", "name=^workerd-", "--format", "{{.Names}}"])
    .split("\n")
    .filter((n) => n && !n.endsWith("-proxy"));
}

/** Waits for exactly one running runner container (the current job's) and returns its name. */
export async function theRunnerContainer(timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const running = runningRunnerContainers();
    if (running.length === 1) return running[0];
    if (Date.now() > deadline)
      throw new Error(`expected one running runner container, found ${running.length}: ${running.join(", ")}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Removes every container workerd left behind (sidecars outlive their apps until workerd exits). */
export function removeLabContainers(): void {
  const all = labDocker(["ps", "-a", "--filter", "name=^workerd-", "--format", "{{.Names}}"])
    .split("\n")
    .filter(Boolean);
  for (const name of all) {
    try {
      labDocker(["rm", "-f", name]);
    } catch {
      // already being removed (wrangler cleans up as it exits)
    }
  }
}
