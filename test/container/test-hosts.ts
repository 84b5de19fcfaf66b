import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTestCa } from "../support/test-ca.ts";

/**
 * Hosts of the container suite's own, with public addresses and names, as a job's URL inputs are
 * in production: a network namespace this suite creates, reached over a veth pair, its servers on
 * ports 80 and 443, and names in /etc/hosts for the run (workerd's fetch and the lab's resolver
 * read that file). The public addresses are routed to the veth by /32 routes; `assertLocal`
 * refuses to go on unless they are, so nothing is ever sent off the machine.
 */
const NAMESPACE = "ffjobs-lab-hosts";
const VETH = { host: "ffjlab0", inside: "ffjlab1" };
const TRANSFER = { host: "172.31.214.1", inside: "172.31.214.2", bits: 24 };
const HOSTS_BEGIN = "# ffjobs container suite test hosts BEGIN";
const HOSTS_END = "# ffjobs container suite test hosts END";
const HOSTS_FILE = "/etc/hosts";

/** AS112 addresses (RFC 7534): public, so the address policy allows them; routed here to the namespace. */
export const TEST_HOSTS = {
  media: { name: "media.ffjobs-lab.test", address: "192.31.196.10" },
  cdn: { name: "cdn.ffjobs-lab.test", address: "192.31.196.11" },
  unnamed: { name: "unnamed.ffjobs-lab.test", address: "192.31.196.12" },
  /**
   * The API and its storage, served by `npm run dev:containers` on this machine under a public
   * address and name, as production's are reached (not loopback, which the sidecar leaves alone).
   */
  api: { name: "api.ffjobs-lab.test", address: "192.31.196.20" },
  /** A name that resolves to a loopback address (where the suite's "elsewhere" server listens). */
  sneaky: { name: "sneaky.ffjobs-lab.test", address: "127.0.0.5" },
} as const;
const PUBLIC = [TEST_HOSTS.media, TEST_HOSTS.cdn, TEST_HOSTS.unnamed];

export type TestHosts = {
  caFile: string;
  /** Requests the namespace's servers received for a host name (`scheme host method url`). */
  requests: (name: string) => string[];
  close: () => void;
};

const ip = (args: string[]) => execFileSync("ip", args, { stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });

function removeHostsBlock(): void {
  const text = readFileSync(HOSTS_FILE, "utf8");
  const start = text.indexOf(HOSTS_BEGIN);
  if (start < 0) return;
  const end = text.indexOf(HOSTS_END, start);
  writeFileSync(HOSTS_FILE, text.slice(0, start) + (end < 0 ? "" : text.slice(end + HOSTS_END.length + 1)));
}

function teardown(): void {
  try {
    for (const pid of ip(["netns", "pids", NAMESPACE]).split("\n").filter(Boolean))
      process.kill(Number(pid), "SIGKILL");
  } catch {
    // no namespace
  }
  for (const args of [
    ["link", "del", VETH.host],
    ["netns", "del", NAMESPACE],
    ...PUBLIC.map((h) => ["route", "del", `${h.address}/32`]),
  ]) {
    try {
      ip(args);
    } catch {
      // already gone
    }
  }
  removeHostsBlock();
}

/** Every public test address must leave through the suite's veth, or nothing is sent at all. */
export function assertLocal(): void {
  for (const h of PUBLIC) {
    const route = ip(["route", "get", h.address]);
    if (!route.includes(`dev ${VETH.host}`))
      throw new Error(`${h.address} is not routed to the test namespace (${route.trim()}): refusing to send anything`);
  }
  const api = ip(["route", "get", TEST_HOSTS.api.address]);
  if (!api.startsWith("local "))
    throw new Error(
      `${TEST_HOSTS.api.address} is not an address of this machine (${api.trim()}): refusing to send anything`,
    );
}

export async function startTestHosts(fixturesDir: string): Promise<TestHosts> {
  teardown(); // what a crashed run left
  ip(["netns", "add", NAMESPACE]);
  ip(["link", "add", VETH.host, "type", "veth", "peer", "name", VETH.inside]);
  ip(["link", "set", VETH.inside, "netns", NAMESPACE]);
  ip(["addr", "add", `${TRANSFER.host}/${TRANSFER.bits}`, "dev", VETH.host]);
  ip(["link", "set", VETH.host, "up"]);
  ip(["-n", NAMESPACE, "addr", "add", `${TRANSFER.inside}/${TRANSFER.bits}`, "dev", VETH.inside]);
  for (const h of PUBLIC) ip(["-n", NAMESPACE, "addr", "add", `${h.address}/32`, "dev", VETH.inside]);
  ip(["-n", NAMESPACE, "link", "set", VETH.inside, "up"]);
  ip(["-n", NAMESPACE, "link", "set", "lo", "up"]);
  ip(["-n", NAMESPACE, "route", "add", "default", "via", TRANSFER.host]);
  for (const h of PUBLIC) ip(["route", "add", `${h.address}/32`, "via", TRANSFER.inside, "dev", VETH.host]);
  // The API's own address is this machine's, on its end of the veth: wrangler dev listens there.
  ip(["addr", "add", `${TEST_HOSTS.api.address}/32`, "dev", VETH.host]);
  assertLocal();
  const all = Object.values(TEST_HOSTS);
  writeFileSync(
    HOSTS_FILE,
    `${readFileSync(HOSTS_FILE, "utf8").replace(/\n?$/, "\n")}${HOSTS_BEGIN}\n${all.map((h) => `${h.address} ${h.name}`).join("\n")}\n${HOSTS_END}\n`,
  );

  const ca = makeTestCa(PUBLIC.map((h) => `DNS:${h.name}`));
  writeFileSync(join(ca.dir, "server.pem"), ca.cert);
  writeFileSync(join(ca.dir, "server.key"), ca.key);
  const server: ChildProcess = spawn(
    "ip",
    [
      "netns",
      "exec",
      NAMESPACE,
      process.execPath,
      join(import.meta.dirname, "test-host-server.ts"),
      fixturesDir,
      join(ca.dir, "server.pem"),
      join(ca.dir, "server.key"),
    ],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const seen: { scheme: string; host: string; method: string; url: string }[] = [];
  await new Promise<void>((ready, fail) => {
    let buffered = "";
    server.once("exit", (code) => fail(new Error(`the test hosts' server exited (${code})`)));
    server.stdout!.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (line === "ready") ready();
        else if (line.startsWith("{")) seen.push(JSON.parse(line));
      }
    });
  });
  return {
    caFile: ca.caFile,
    requests: (name) =>
      seen.filter((r) => r.host.replace(/:\d+$/, "") === name).map((r) => `${r.scheme} ${r.host} ${r.method} ${r.url}`),
    close: () => {
      server.kill("SIGKILL");
      teardown();
    },
  };
}
