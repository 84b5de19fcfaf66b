import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DnsMode } from "../../lab/egress-sidecar/dns.ts";
import { LAB } from "../../lab/lab-paths.ts";
import { labUnavailableReason, prepareLab } from "../../lab/prepare.ts";
import { startDevStack, type DevStack } from "../support/dev-stack.ts";
import { removeLabContainers } from "./lab-docker.ts";
import { TEST_HOSTS, type TestHosts } from "./test-hosts.ts";

/**
 * A loopback server no job may reach (a test host's name resolves there). The API, its storage and
 * URL inputs are on the suite's test hosts (test-hosts.ts), by name and on public addresses.
 */
export const HOSTS = { elsewhere: "127.0.0.5" } as const;

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
 * `npm run dev:containers` on the test hosts' API address, port 80, reached by its name, with a state
 * folder of its own; workerd trusts the test hosts' CA besides the public roots (wrangler hands
 * NODE_EXTRA_CA_CERTS to workerd). The test hosts must be up (their names are in /etc/hosts).
 */
export async function startContainerStack(
  hosts: TestHosts,
  env: Record<string, string> = {},
  dnsMode: DnsMode = "placeholder",
): Promise<DevStack> {
  removeLabContainers();
  setDnsMode(dnsMode);
  return startDevStack(
    {
      HOST: TEST_HOSTS.api.address,
      PUBLIC_HOST: TEST_HOSTS.api.name,
      PORT: "80",
      NODE_EXTRA_CA_CERTS: hosts.caFile,
      FFJOBS_STATE_DIR: mkdtempSync(join(tmpdir(), "ffjobs-containers-state-")),
      ALLOWED_PRIVATE_HOSTS: "",
      RUNNER_POLL_INTERVAL_MS: "200",
      ...env,
    },
    { containers: true },
  );
}

/**
 * How the sidecar double answers the containers' DNS from now on (lab/egress-sidecar/dns.ts): the
 * lab's runtime reads it as each sidecar is created, so it applies to containers started later.
 */
export function setDnsMode(mode: DnsMode): void {
  const file = join(LAB.dir, "dns-mode");
  if (mode === "placeholder") rmSync(file, { force: true });
  else writeFileSync(file, mode);
}

export async function stopContainerStack(stack: DevStack | undefined): Promise<void> {
  await stack?.stop();
  removeLabContainers();
}
