import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hostsAnswer, parseHosts, startHostsResolver } from "../../lab/hosts-resolver.ts";
import { dohResolver } from "../../src/net/doh-resolver.ts";

/**
 * The lab's stand-in for the DNS-over-HTTPS resolver the Worker's container egress asks: it must
 * answer in the JSON API's shape, from the hosts file only, so that the Worker's own resolver code
 * (src/net/doh-resolver.ts) reads it as it reads Cloudflare's.
 */
const HOSTS =
  "127.0.0.1 localhost\n# comment\n192.31.196.10 media.ffjobs-lab.test  # trailing\n2001:4860::10 media.ffjobs-lab.test\n127.0.0.5 sneaky.ffjobs-lab.test\n";

describe("the lab's hosts-file DoH resolver (a test double)", () => {
  it("answers A and AAAA from the file, NXDOMAIN for names it does not list", () => {
    const table = parseHosts(HOSTS);
    expect(hostsAnswer(table, "Media.ffjobs-lab.test.", "A")).toMatchObject({
      Status: 0,
      Answer: [{ name: "media.ffjobs-lab.test.", type: 1, data: "192.31.196.10" }],
    });
    expect(hostsAnswer(table, "media.ffjobs-lab.test", "AAAA")).toMatchObject({
      Status: 0,
      Answer: [{ type: 28, data: "2001:4860::10" }],
    });
    expect(hostsAnswer(table, "sneaky.ffjobs-lab.test", "AAAA")).toMatchObject({ Status: 0, Answer: [] });
    expect(hostsAnswer(table, "example.com", "A")).toMatchObject({ Status: 3 });
  });

  it("is read by the Worker's DoH resolver as Cloudflare's API is, over HTTP on loopback", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "hosts-")), "hosts");
    writeFileSync(file, HOSTS);
    const server = await startHostsResolver(file);
    try {
      const resolve = dohResolver(server.url);
      // TTL 0: the file is read anew for every query (the Worker's cache keeps such an answer 5 s).
      expect(await resolve("media.ffjobs-lab.test")).toEqual({
        addresses: ["192.31.196.10", "2001:4860::10"],
        ttlSeconds: 0,
      });
      expect(await resolve("sneaky.ffjobs-lab.test")).toEqual({ addresses: ["127.0.0.5"], ttlSeconds: 0 });
      expect(await resolve("nowhere.example")).toMatchObject({ error: "nxdomain" });
      writeFileSync(file, `${HOSTS}192.31.196.12 later.ffjobs-lab.test\n`);
      expect(await resolve("later.ffjobs-lab.test")).toEqual({ addresses: ["192.31.196.12"], ttlSeconds: 0 });
    } finally {
      server.close();
    }
  });
});
