// TEST DOUBLE of the DNS-over-HTTPS resolver the Worker's container egress asks (production:
// Cloudflare's JSON API at cloudflare-dns.com/dns-query; src/net/doh-resolver.ts), for the lab:
// it answers from this machine's /etc/hosts only, which is where workerd's own fetch (getaddrinfo,
// "files" first) finds the lab's test hosts, so the check and the fetch see the same addresses.
// A name that is not in the file is NXDOMAIN: the double never asks a real resolver, so nothing
// leaves the machine. Answer format as the JSON API's: `{ Status, Question, Answer: [{ name,
// type, TTL, data }] }`, Status 0 (NOERROR, possibly with no Answer for the other family) or 3.
import { readFileSync } from "node:fs";
import http from "node:http";
import { isIPv4, isIPv6, type AddressInfo } from "node:net";

const TYPES = { A: 1, AAAA: 28 } as const;
const TTL_SECONDS = 0;

/** name → addresses, from the hosts file's text (comments and blank lines ignored). */
export function parseHosts(text: string): Map<string, string[]> {
  const table = new Map<string, string[]>();
  for (const line of text.split("\n")) {
    const [address, ...names] = line.replace(/#.*/, "").trim().split(/\s+/);
    if (!address || !(isIPv4(address) || isIPv6(address))) continue;
    for (const name of names) table.set(name.toLowerCase(), [...(table.get(name.toLowerCase()) ?? []), address]);
  }
  return table;
}

export function hostsAnswer(table: Map<string, string[]>, name: string, type: string): object {
  const wanted = name.replace(/\.$/, "").toLowerCase();
  const code = TYPES[type as keyof typeof TYPES];
  const addresses = table.get(wanted);
  const question = [{ name: `${wanted}.`, type: code ?? 0 }];
  if (!addresses) return { Status: 3, Question: question };
  const matching = addresses.filter((a) => (code === TYPES.A ? isIPv4(a) : code === TYPES.AAAA ? isIPv6(a) : false));
  return {
    Status: 0,
    Question: question,
    Answer: matching.map((data) => ({ name: `${wanted}.`, type: code, TTL: TTL_SECONDS, data })),
  };
}

/** Serves `GET /dns-query?name=&type=` on loopback; returns its URL. The file is read per query. */
export async function startHostsResolver(hostsFile = "/etc/hosts"): Promise<{ url: string; close: () => void }> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://resolver");
    const name = url.searchParams.get("name");
    if (req.method !== "GET" || url.pathname !== "/dns-query" || !name) return res.writeHead(400).end();
    const answer = hostsAnswer(parseHosts(readFileSync(hostsFile, "utf8")), name, url.searchParams.get("type") ?? "A");
    res.writeHead(200, { "content-type": "application/dns-json" }).end(JSON.stringify(answer));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/dns-query`, close: () => server.close() };
}
