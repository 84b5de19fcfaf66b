import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { labUnavailableReason, prepareLab } from "../../lab/prepare.ts";
import { startDevStack, type DevStack } from "../support/dev-stack.ts";
import { removeLabContainers } from "./lab-docker.ts";

/**
 * Addresses on loopback, each on port 80 because the container egress hands the Worker only port
 * 80: the API (and its storage endpoint: miniflare serves that only to Host 127.0.0.1 or
 * localhost), a loopback media server (the latency benchmark's, allowed by ALLOWED_PRIVATE_HOSTS
 * there), and a server no job may reach. URL inputs by host name use test-hosts.ts.
 */
export const HOSTS = { api: "127.0.0.1", media: "127.0.0.4", elsewhere: "127.0.0.5" } as const;

/**
 * Readies the lab (Docker engine, images) or says loudly why it cannot: in CI that fails the run,
 * locally the suite is skipped. Returns the reason the suite cannot run, or null.
 */
export async function labOrReason(): Promise<string | null> {
  let reason = labUnavailableReason();
  if (!reason) {
    try {
      await prepareLab();
    } catch (err) {
      reason = `the Docker engine could not start: ${err instanceof Error ? err.message : String(err)}`;
    }
  }
  if (reason) {
    const banner = `\n${"!".repeat(78)}\n!! CONTAINER SUITE NOT RUN: ${reason}\n${"!".repeat(78)}\n`;
    if (process.env.FFJOBS_CONTAINERS_REQUIRED) throw new Error(banner);
    console.warn(`${banner}(skipped locally; under CI=true this is a failure)\n`);
  }
  return reason;
}

/**
 * `npm run dev:containers` on HOSTS.api:80, with a state folder of its own. `NODE_EXTRA_CA_CERTS`
 * in `env` names a CA workerd trusts besides the public roots (wrangler hands it to workerd).
 */
export async function startContainerStack(env: Record<string, string> = {}): Promise<DevStack> {
  removeLabContainers();
  return startDevStack(
    {
      HOST: HOSTS.api,
      PORT: "80",
      FFJOBS_STATE_DIR: mkdtempSync(join(tmpdir(), "ffjobs-containers-state-")),
      ALLOWED_PRIVATE_HOSTS: "",
      RUNNER_POLL_INTERVAL_MS: "200",
      ...env,
    },
    { containers: true },
  );
}

export async function stopContainerStack(stack: DevStack | undefined): Promise<void> {
  await stack?.stop();
  removeLabContainers();
}
