import { mkdtempSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import tls from "node:tls";
import { X509Certificate } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dnsAnswer } from "../../lab/egress-sidecar/dns.ts";
import { applyEgressUpdate, dnsNameAllowed, initialConfig, type EgressConfig } from "../../lab/egress-sidecar/egress-config.ts";
import { connectRequest, startEgressProxy } from "../../lab/egress-sidecar/egress.ts";
import { extractSni, readHostname } from "../../lab/egress-sidecar/peek.ts";
import { startInterceptor, type Interceptor } from "../../lab/egress-sidecar/tls-intercept.ts";

/**
 * The lab's egress sidecar test double against the behaviour of cloudflare/proxy-everything it
 * mirrors (dns.go, main.go, sni.go, tls.go): what a container sees of DNS, what workerd is sent.
 */
function query(name: string, qtype: number, flags = 0x0100): Buffer {
  const labels = name.split(".").flatMap((l) => [l.length, ...Buffer.from(l)]);
  return Buffer.from([0x12, 0x34, flags >> 8, flags & 0xff, 0, 1, 0, 0, 0, 0, 0, 0, ...labels, 0, 0, qtype, 0, 1]);
}

/** The answers' types and data, and the header's rcode/AA/RA, of a reply. */
function parse(reply: Buffer) {
  let at = 12;
  while (reply[at] !== 0) at += reply[at] + 1;
  at += 5;
  const records: { type: number; ttl: number; data: number[] }[] = [];
  for (let i = 0; i < reply.readUInt16BE(6); i++) {
    const len = reply.readUInt16BE(at + 10);
    records.push({ type: reply.readUInt16BE(at + 2), ttl: reply.readUInt32BE(at + 6), data: [...reply.subarray(at + 12, at + 12 + len)] });
    at += 12 + len;
  }
  return { id: reply.readUInt16BE(0), rcode: reply[3] & 0x0f, authoritative: (reply[2] & 0x04) !== 0, recursionAvailable: (reply[3] & 0x80) !== 0, records };
}

const internetOff = (patterns = ["*"]): EgressConfig => ({ port: 1, internetEnabled: false, dnsAllowPatterns: patterns });
const FD00_1 = [0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];

describe("the sidecar double's DNS (dns.go)", () => {
  it("answers an allowed name with the fallback addresses: A 11.0.0.1, AAAA fd00::1, both for ANY; authoritative, TTL 60", () => {
    const a = parse(dnsAnswer(query("media.example.com", 1), internetOff())!);
    expect(a).toMatchObject({ id: 0x1234, rcode: 0, authoritative: true, recursionAvailable: false });
    expect(a.records).toEqual([{ type: 1, ttl: 60, data: [11, 0, 0, 1] }]);
    expect(parse(dnsAnswer(query("media.example.com", 28), internetOff())!).records).toEqual([{ type: 28, ttl: 60, data: FD00_1 }]);
    expect(parse(dnsAnswer(query("media.example.com", 255), internetOff())!).records.map((r) => r.type)).toEqual([1, 28]);
  });

  it("answers NXDOMAIN for a name the allow patterns do not match", () => {
    const reply = parse(dnsAnswer(query("other.example.org", 1), internetOff(["*.example.com", "cdn.example.net"]))!);
    expect(reply).toMatchObject({ rcode: 3, records: [] });
    expect(parse(dnsAnswer(query("media.example.com", 1), internetOff(["*.example.com"]))!).rcode).toBe(0);
  });

  it("matches patterns as upstream: *, exact, globs spanning dots, case and trailing dots ignored", () => {
    expect(dnsNameAllowed(["*"], "anything.at.all.")).toBe(true);
    expect(dnsNameAllowed(["cloudflare.*.com"], "Cloudflare.Edge.Net.com.")).toBe(true);
    expect(dnsNameAllowed(["cloudflare.com"], "www.cloudflare.com")).toBe(false);
    expect(dnsNameAllowed([], "cloudflare.com")).toBe(false);
  });

  it("does not pretend to forward when the internet is on (the double reaches no resolver)", () => {
    expect(parse(dnsAnswer(query("media.example.com", 1), initialConfig(1))!)).toMatchObject({ rcode: 2, records: [] });
  });

  it("drops what it cannot parse", () => {
    expect(dnsAnswer(Buffer.from([1, 2, 3]), internetOff())).toBeNull();
  });
});

describe("the sidecar double's configuration (PUT /egress, main.go handlePut)", () => {
  it("takes port, internet and DNS allow list; 400 for an empty, malformed or bad-port body", () => {
    const config = initialConfig(49121);
    expect(config).toEqual({ port: 49121, internetEnabled: true, dnsAllowPatterns: ["*"] });
    expect(applyEgressUpdate(config, JSON.stringify({ port: 40000, internet: { enabled: false }, dns: { allowHostnames: [" Media.Example.COM. ", ""] } }))).toBe(204);
    expect(config).toEqual({ port: 40000, internetEnabled: false, dnsAllowPatterns: ["media.example.com"] });
    expect(applyEgressUpdate(config, "{}")).toBe(400);
    expect(applyEgressUpdate(config, "not json")).toBe(400);
    expect(applyEgressUpdate(config, JSON.stringify({ port: 70000 }))).toBe(400);
    expect(applyEgressUpdate(config, JSON.stringify({ dns: {} }))).toBe(204);
    expect(config.dnsAllowPatterns).toEqual(["media.example.com"]);
  });
});

describe("the sidecar double's egress (main.go, sni.go)", () => {
  it("reads the Host of a port-80 request; not HTTP means no hint; an oversized or malformed head is an error", () => {
    expect(readHostname(Buffer.from("GET /x HTTP/1.1\r\nHost: media.example.com\r\n\r\n"))).toEqual({ kind: "host", host: "media.example.com" });
    expect(readHostname(Buffer.from("GET http://abs.example.com/x HTTP/1.1\r\nHost: other\r\n\r\n"))).toEqual({ kind: "host", host: "abs.example.com" });
    expect(readHostname(Buffer.from("GET /x HTTP/1.1\r\nHo"))).toEqual({ kind: "need-more" });
    expect(readHostname(Buffer.from("SSH-2.0-OpenSSH\r\n"))).toEqual({ kind: "not-http" });
    expect(readHostname(Buffer.from("GET /x\r\n\r\n"))).toEqual({ kind: "error" });
    expect(readHostname(Buffer.concat([Buffer.from("GET /x HTTP/1.1\r\nX: "), Buffer.alloc(128 * 1024, 97)]))).toEqual({ kind: "error" });
  });

  it("writes the CONNECT upstream writes, with the hints it has", () => {
    expect(connectRequest("11.0.0.1:443", "172.17.0.3:40000", { sni: "media.example.com", hostname: "" })).toBe(
      "CONNECT 11.0.0.1:443 HTTP/1.1\r\nHost: 11.0.0.1:443\r\nUser-Agent: proxy-everything/0.0.1/172.17.0.3:40000\r\nConnection: close\r\n" +
        "X-Forwarded-For: 172.17.0.3:40000\r\nX-Proto: tcp\r\nX-Tls-Sni: media.example.com\r\n\r\n",
    );
  });
});

describe("the sidecar double's TLS interception (tls.go), through its listeners on loopback", () => {
  let interceptor: Interceptor;
  let workerd: net.Server;
  const received: { head: string; body: string }[] = [];
  let workerdAnswer = "HTTP/1.1 200 OK\r\n\r\n";
  const ports = { "80": 0, "443": 0, other: 0 };
  let servers: net.Server[] = [];

  beforeAll(async () => {
    interceptor = startInterceptor(mkdtempSync(join(tmpdir(), "sidecar-ca-")));
    // A stand-in for workerd's egress listener: records the CONNECT and what the tunnel carries.
    workerd = net.createServer((s) => {
      let data = "";
      let answered = false;
      s.on("data", (c) => {
        data += c.toString("latin1");
        if (!answered && data.includes("\r\n\r\n")) {
          answered = true;
          s.write(workerdAnswer);
        }
        const end = data.indexOf("\r\n\r\n");
        const body = data.slice(end + 4);
        if (end >= 0 && body.includes("\r\n\r\n")) {
          received.push({ head: data.slice(0, end), body });
          s.end("HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok");
        }
      });
    });
    await new Promise<void>((r) => workerd.listen(0, "127.0.0.1", () => r()));
    for (const key of Object.keys(ports) as (keyof typeof ports)[]) ports[key] = 20000 + Math.floor(Math.random() * 20000);
    servers = startEgressProxy({ host: "127.0.0.1", port: () => (workerd.address() as net.AddressInfo).port }, "127.0.0.1", interceptor, ports);
    await new Promise((r) => setTimeout(r, 100));
  });
  afterAll(() => {
    workerd.close();
    for (const s of servers) s.close();
  });

  function httpsGet(sni: string): Promise<{ status: string; cert: tls.PeerCertificate }> {
    return new Promise((resolve, reject) => {
      const socket = tls.connect({ host: "127.0.0.1", port: ports["443"], servername: sni, ca: interceptor.caPem }, () => {
        const cert = socket.getPeerCertificate();
        socket.write(`GET /clip.mp4 HTTP/1.1\r\nHost: ${sni}\r\nConnection: close\r\n\r\n`);
        let text = "";
        socket.on("data", (c) => (text += c));
        socket.on("end", () => resolve({ status: text.split("\r\n")[0], cert }));
      });
      socket.on("error", reject);
    });
  }

  it("asks workerd with X-Tls-Sni and, on 200, serves a leaf for that name signed by the CA it serves, then carries plaintext", async () => {
    workerdAnswer = "HTTP/1.1 200 OK\r\n\r\n";
    const { status, cert } = await httpsGet("media.example.com");
    expect(status).toBe("HTTP/1.1 200 OK");
    expect(cert.subject.CN).toBe("media.example.com");
    expect(cert.subjectaltname).toBe("DNS:media.example.com");
    expect(new X509Certificate(cert.raw).checkIssued(new X509Certificate(interceptor.caPem))).toBe(true);
    const seen = received.at(-1)!;
    expect(seen.head).toMatch(/^CONNECT 11\.0\.0\.1:443 HTTP\/1\.1\r\n/);
    expect(seen.head).toMatch(/\r\nX-Tls-Sni: media\.example\.com(\r\n|$)/);
    expect(seen.head).not.toMatch(/X-Hostname/);
    expect(seen.body).toMatch(/^GET \/clip\.mp4 HTTP\/1\.1\r\nHost: media\.example\.com/);
  });

  it("resets the connection when workerd refuses the tunnel", async () => {
    workerdAnswer = "HTTP/1.1 400 Bad Request\r\n\r\n";
    await expect(httpsGet("refused.example.com")).rejects.toThrow(/ECONNRESET|socket disconnected/);
  });

  it("sends a port-80 request's Host as X-Hostname, with an IP literal as the destination when the Host is one", async () => {
    workerdAnswer = "HTTP/1.1 200 OK\r\n\r\n";
    for (const host of ["media.example.com", "203.0.113.7"]) {
      await new Promise<void>((resolve, reject) => {
        const s = net.connect(ports["80"], "127.0.0.1", () => s.write(`GET / HTTP/1.1\r\nHost: ${host}\r\n\r\n`));
        s.on("data", () => s.end());
        s.on("close", () => resolve());
        s.on("error", reject);
      });
      await expect.poll(() => received.at(-1)?.head ?? "").toContain(`X-Hostname: ${host}`);
      expect(received.at(-1)!.head).toMatch(new RegExp(`^CONNECT ${host === "media.example.com" ? "11\\.0\\.0\\.1" : "203\\.0\\.113\\.7"}:80 `));
    }
  });

  it("resets connections to ports the platform does not carry", async () => {
    const error = await new Promise((resolve) => {
      const s = net.connect(ports.other, "127.0.0.1", () => s.write("hello"));
      s.on("error", (e) => resolve((e as NodeJS.ErrnoException).code));
      s.on("close", () => resolve("closed"));
    });
    expect(["ECONNRESET", "closed"]).toContain(error);
  });

  it("finds the SNI in a real ClientHello, and none in other bytes", () => {
    expect(extractSni(Buffer.from("GET / HTTP/1.1\r\n\r\n"))).toBe("");
    expect(extractSni(Buffer.from([0x16, 3, 1, 0, 2, 1, 0]))).toBe("");
  });
});
