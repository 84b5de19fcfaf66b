import { mkdtempSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import tls from "node:tls";
import { X509Certificate } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dnsAnswer } from "../../lab/egress-sidecar/dns.ts";
import {
  applyEgressUpdate,
  dnsNameAllowed,
  initialConfig,
  type EgressConfig,
} from "../../lab/egress-sidecar/egress-config.ts";
import { connectRequest, startEgressProxy, type Destination } from "../../lab/egress-sidecar/egress.ts";
import { ignoredRangesV4, interceptionCommands } from "../../lab/egress-sidecar/interception.ts";
import { extractSni, readHostname } from "../../lab/egress-sidecar/peek.ts";
import { startInterceptor, type Interceptor } from "../../lab/egress-sidecar/tls-intercept.ts";

/**
 * The lab's egress sidecar test double against the behaviour of cloudflare/proxy-everything it
 * mirrors (dns.go, main.go, sni.go, tls.go): what a container sees of DNS, what workerd is sent.
 */
function query(name: string, qtype: number, flags = 0x0100, more: [string, number][] = []): Buffer {
  const asked = [[name, qtype] as [string, number], ...more].filter(([n]) => n !== "");
  const body = asked.flatMap(([n, t]) => [
    ...n.split(".").flatMap((l) => [l.length, ...Buffer.from(l)]),
    0,
    0,
    t,
    0,
    1,
  ]);
  return Buffer.from([0x12, 0x34, flags >> 8, flags & 0xff, 0, asked.length, 0, 0, 0, 0, 0, 0, ...body]);
}

/** The answers' types and data, and the header's rcode/AA/RA, of a reply. */
function parse(reply: Buffer) {
  let at = 12;
  const name = () => {
    const labels: string[] = [];
    while (reply[at] !== 0) {
      labels.push(reply.toString("latin1", at + 1, at + 1 + reply[at]));
      at += reply[at] + 1;
    }
    at += 1;
    return labels.join(".");
  };
  const questions: string[] = [];
  for (let i = 0; i < reply.readUInt16BE(4); i++) {
    questions.push(name());
    at += 4;
  }
  const records: { name: string; type: number; ttl: number; data: number[] }[] = [];
  for (let i = 0; i < reply.readUInt16BE(6); i++) {
    const owner = name();
    const len = reply.readUInt16BE(at + 8);
    records.push({
      name: owner,
      type: reply.readUInt16BE(at),
      ttl: reply.readUInt32BE(at + 4),
      data: [...reply.subarray(at + 10, at + 10 + len)],
    });
    at += 10 + len;
  }
  return {
    id: reply.readUInt16BE(0),
    rcode: reply[3] & 0x0f,
    authoritative: (reply[2] & 0x04) !== 0,
    recursionAvailable: (reply[3] & 0x80) !== 0,
    questions,
    records,
  };
}

const internetOff = (patterns = ["*"]): EgressConfig => ({
  port: 1,
  internetEnabled: false,
  dnsAllowPatterns: patterns,
});
const FD00_1 = [0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];

describe("the sidecar double's DNS (dns.go)", () => {
  it("answers an allowed name with the fallback addresses: A 11.0.0.1, AAAA fd00::1, both for ANY; authoritative, TTL 60", () => {
    const a = parse(dnsAnswer(query("media.example.com", 1), internetOff())!);
    expect(a).toMatchObject({ id: 0x1234, rcode: 0, authoritative: true, recursionAvailable: false });
    expect(a.records).toEqual([{ name: "media.example.com", type: 1, ttl: 60, data: [11, 0, 0, 1] }]);
    expect(parse(dnsAnswer(query("media.example.com", 28), internetOff())!).records).toEqual([
      { name: "media.example.com", type: 28, ttl: 60, data: FD00_1 },
    ]);
    expect(parse(dnsAnswer(query("media.example.com", 255), internetOff())!).records.map((r) => r.type)).toEqual([
      1, 28,
    ]);
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
    expect(dnsAnswer(query("media.example.com", 1).subarray(0, 20), internetOff())).toBeNull();
  });

  it("answers NXDOMAIN to a query with no question (upstream: allowed needs Question[0])", () => {
    expect(parse(dnsAnswer(query("", 1), internetOff())!)).toMatchObject({
      id: 0x1234,
      rcode: 3,
      questions: [],
      records: [],
    });
  });

  it("decides on the first question, answers every one and echoes only the first (miekg SetReply)", () => {
    const reply = parse(
      dnsAnswer(
        query("media.example.com", 1, 0x0100, [["other.example.org", 28]]),
        internetOff(["media.example.com"]),
      )!,
    );
    expect(reply.questions).toEqual(["media.example.com"]);
    expect(reply.records.map((r) => [r.name, r.type])).toEqual([
      ["media.example.com", 1],
      ["other.example.org", 28],
    ]);
    expect(
      parse(
        dnsAnswer(
          query("other.example.org", 1, 0x0100, [["media.example.com", 1]]),
          internetOff(["media.example.com"]),
        )!,
      ).rcode,
    ).toBe(3);
  });

  it("answers as a platform might in its other modes: a public or a private address per name, stable across queries", () => {
    const a = (mode: "public" | "private", name: string) =>
      parse(dnsAnswer(query(name, 255), internetOff(), mode)!).records.map((r) => r.data);
    const [pub4, pub6] = a("public", "media.example.com");
    expect(pub4.slice(0, 3)).toEqual([192, 31, 196]);
    expect(pub4[3]).toBeGreaterThanOrEqual(128);
    expect(pub6.slice(0, 6)).toEqual([0x26, 0x20, 0, 0x4f, 0x80, 0]);
    const [priv4, priv6] = a("private", "media.example.com");
    expect(priv4.slice(0, 2)).toEqual([10, 77]);
    expect(priv6.slice(0, 2)).toEqual([0xfd, 0x77]);
    expect(a("private", "MEDIA.example.com")).toEqual([priv4, priv6]);
    expect(a("private", "cdn.example.com")).not.toEqual([priv4, priv6]);
  });
});

describe("the sidecar double's configuration (PUT /egress, main.go handlePut)", () => {
  it("takes port, internet and DNS allow list; 400 for an empty, malformed or bad-port body", () => {
    const config = initialConfig(49121);
    expect(config).toEqual({ port: 49121, internetEnabled: true, dnsAllowPatterns: ["*"] });
    expect(
      applyEgressUpdate(
        config,
        JSON.stringify({
          port: 40000,
          internet: { enabled: false },
          dns: { allowHostnames: [" Media.Example.COM. ", ""] },
        }),
      ),
    ).toBe(204);
    expect(config).toEqual({ port: 40000, internetEnabled: false, dnsAllowPatterns: ["media.example.com"] });
    expect(applyEgressUpdate(config, "{}")).toBe(400);
    expect(applyEgressUpdate(config, "not json")).toBe(400);
    expect(applyEgressUpdate(config, JSON.stringify({ port: 70000 }))).toBe(400);
    expect(applyEgressUpdate(config, JSON.stringify({ dns: {} }))).toBe(204);
    expect(config.dnsAllowPatterns).toEqual(["media.example.com"]);
  });

  it("decodes the body as Go's encoding/json does: keys ignoring case, the last one wins, the first value only", () => {
    const config = initialConfig(49121);
    expect(
      applyEgressUpdate(
        config,
        '{"PORT": 40001, "Internet": {"ENABLED": false}, "dns": {"AllowHostnames": ["a.example"]}}',
      ),
    ).toBe(204);
    expect(config).toEqual({ port: 40001, internetEnabled: false, dnsAllowPatterns: ["a.example"] });
    expect(applyEgressUpdate(config, '{"port": 40002, "Port": 40003}')).toBe(204);
    expect(config.port).toBe(40003);
    expect(applyEgressUpdate(config, '{"port": 40004} trailing bytes are never read')).toBe(204);
    expect(config.port).toBe(40004);
    expect(applyEgressUpdate(config, '{"port": null, "internet": null}')).toBe(400);
    expect(applyEgressUpdate(config, '{"internet": {}}')).toBe(204);
    expect(config.internetEnabled).toBe(false);
  });

  it("refuses a value of the wrong type anywhere, changing nothing (400)", () => {
    const config = initialConfig(49121);
    for (const body of [
      '{"port": "80"}',
      '{"port": 80.5}',
      '{"internet": {"enabled": "yes"}}',
      '{"internet": true}',
      '{"dns": {"allowHostnames": "a.example"}}',
      '{"dns": {"allowHostnames": ["a", 1]}}',
      '[{"port": 80}]',
      '"port"',
    ]) {
      expect(applyEgressUpdate(config, body), body).toBe(400);
      expect(config, body).toEqual(initialConfig(49121));
    }
  });
});

describe("the sidecar double's interception (main.go entrypoint)", () => {
  it("leaves upstream's ranges alone and sends every other TCP connection to the transparent listener, in upstream's order", () => {
    const ignored = ignoredRangesV4("172.31.213.0/24", "172.31.213.1", ["127.0.0.1/8", "172.31.213.2/24"]);
    expect(ignored).toEqual(["127.0.0.1/8", "172.31.213.0/24", "172.31.213.1/24", "127.0.0.1/8", "172.31.213.2/24"]);
    const lines = interceptionCommands(ignored, { address: "172.31.213.2", port: 5353 }).map((c) => c.join(" "));
    expect(lines.slice(0, 6)).toEqual([
      "ip -4 rule add fwmark 1 table 100",
      "ip -4 route add local default dev lo table 100",
      "iptables -t mangle -N DIVERT",
      "iptables -t mangle -A DIVERT -j MARK --set-mark 1",
      "iptables -t mangle -A DIVERT -j ACCEPT",
      "iptables -t mangle -A PREROUTING -p tcp -m socket -j DIVERT",
    ]);
    const tproxy = lines.filter((l) => l.includes("DOCKER_PROXY_ANYTHING_TPROXY"));
    expect(tproxy.slice(1, 6)).toEqual(
      ignored.map((c) => `iptables -t mangle -A DOCKER_PROXY_ANYTHING_TPROXY -d ${c} -j RETURN`),
    );
    expect(tproxy).toContain(
      "iptables -t mangle -A DOCKER_PROXY_ANYTHING_TPROXY -p tcp -j TPROXY --tproxy-mark 0x1/0x1 --on-port 41209 --on-ip 127.0.0.3",
    );
    // Every port: no --dport in the TCP rules; DNS only on 53, and not to the ranges left alone.
    expect(lines.filter((l) => l.includes("-p tcp") && l.includes("--dport"))).toEqual([]);
    expect(lines).toContain("iptables -t nat -A OUTPUT -p udp --dport 53 -j DOCKER_PROXY_DNS");
    // The lab's own fence after them: what upstream would let leave (UDP, ICMP) stays on the machine.
    expect(lines.at(-1)).toBe("iptables -A OUTPUT -j DROP");
    expect(lines.indexOf("iptables -t nat -A DOCKER_PROXY_DNS -d 172.31.213.0/24 -j RETURN")).toBeLessThan(
      lines.findIndex((l) => l.includes("DNAT")),
    );
  });
});

describe("the sidecar double's egress (main.go, sni.go)", () => {
  it("reads the Host of a port-80 request; not HTTP means no hint; an oversized or malformed head is an error", () => {
    expect(readHostname(Buffer.from("GET /x HTTP/1.1\r\nHost: media.example.com\r\n\r\n"))).toEqual({
      kind: "host",
      host: "media.example.com",
    });
    expect(readHostname(Buffer.from("GET http://abs.example.com/x HTTP/1.1\r\nHost: other\r\n\r\n"))).toEqual({
      kind: "host",
      host: "abs.example.com",
    });
    expect(readHostname(Buffer.from("GET /x HTTP/1.1\r\nHo"))).toEqual({ kind: "need-more" });
    expect(readHostname(Buffer.from("SSH-2.0-OpenSSH\r\n"))).toEqual({ kind: "not-http" });
    expect(readHostname(Buffer.from("GET /x\r\n\r\n"))).toEqual({ kind: "error" });
    expect(readHostname(Buffer.concat([Buffer.from("GET /x HTTP/1.1\r\nX: "), Buffer.alloc(128 * 1024, 97)]))).toEqual({
      kind: "error",
    });
  });

  it("writes the CONNECT upstream writes, with the hints it has", () => {
    expect(connectRequest("11.0.0.1:443", "172.17.0.3:40000", { sni: "media.example.com", hostname: "" })).toBe(
      "CONNECT 11.0.0.1:443 HTTP/1.1\r\nHost: 11.0.0.1:443\r\nUser-Agent: proxy-everything/0.0.1/172.17.0.3:40000\r\nConnection: close\r\n" +
        "X-Forwarded-For: 172.17.0.3:40000\r\nX-Proto: tcp\r\nX-Tls-Sni: media.example.com\r\n\r\n",
    );
  });
});

describe("the sidecar double's egress (main.go proxy.run, tls.go), through its listener on loopback", () => {
  let interceptor: Interceptor;
  let workerd: net.Server;
  const received: { head: string; body: string }[] = [];
  let workerdAnswer = "HTTP/1.1 200 OK\r\n\r\n";
  /** What TPROXY would report as the connection's real destination. */
  let destination: Destination = { address: "11.0.0.1", port: 443 };
  let proxy: net.Server;
  let proxyPort = 0;

  beforeAll(async () => {
    interceptor = startInterceptor(mkdtempSync(join(tmpdir(), "sidecar-ca-")));
    // A stand-in for workerd's egress listener: records the CONNECT and what the tunnel carries.
    workerd = net.createServer((s) => {
      let data = "";
      let answered = false;
      let passedThrough = false;
      s.on("data", (c) => {
        if (passedThrough) return;
        data += c.toString("latin1");
        const end = data.indexOf("\r\n\r\n");
        if (!answered && end >= 0) {
          answered = true;
          s.write(workerdAnswer);
          // 202: workerd passes bytes through, and with the internet off closes them at once.
          if (workerdAnswer.includes(" 202 ")) {
            passedThrough = true;
            received.push({ head: data.slice(0, end), body: "" });
            return s.end();
          }
        }
        const body = data.slice(end + 4);
        if (end >= 0 && body.includes("\r\n\r\n")) {
          received.push({ head: data.slice(0, end), body });
          s.end("HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok");
        }
      });
    });
    await new Promise<void>((r) => workerd.listen(0, "127.0.0.1", () => r()));
    proxy = startEgressProxy(
      { host: "127.0.0.1", port: () => (workerd.address() as net.AddressInfo).port },
      { host: "127.0.0.1", port: 0 },
      interceptor,
      () => destination,
    );
    await new Promise((r) => proxy.once("listening", r));
    proxyPort = (proxy.address() as net.AddressInfo).port;
  });
  afterAll(() => {
    workerd.close();
    proxy.close();
  });

  function httpsGet(sni: string): Promise<{ status: string; cert: tls.PeerCertificate }> {
    return new Promise((resolve, reject) => {
      const socket = tls.connect({ host: "127.0.0.1", port: proxyPort, servername: sni, ca: interceptor.caPem }, () => {
        const cert = socket.getPeerCertificate();
        socket.write(`GET /clip.mp4 HTTP/1.1\r\nHost: ${sni}\r\nConnection: close\r\n\r\n`);
        let text = "";
        socket.on("data", (c) => (text += c));
        socket.on("end", () => resolve({ status: text.split("\r\n")[0], cert }));
      });
      socket.on("error", reject);
    });
  }

  /** Sends raw bytes; resolves with how the connection ended. */
  function rawSend(bytes: Buffer | string): Promise<string> {
    return new Promise((resolve) => {
      const s = net.connect(proxyPort, "127.0.0.1", () => s.write(bytes));
      s.on("data", () => s.end());
      s.on("error", (e) => resolve((e as NodeJS.ErrnoException).code ?? "error"));
      s.on("close", () => resolve("closed"));
    });
  }

  it("asks workerd with X-Tls-Sni and the real destination; on 200 serves a leaf for that name signed by the CA it serves, then carries plaintext", async () => {
    workerdAnswer = "HTTP/1.1 200 OK\r\n\r\n";
    destination = { address: "10.77.4.9", port: 443 };
    const { status, cert } = await httpsGet("media.example.com");
    expect(status).toBe("HTTP/1.1 200 OK");
    expect(cert.subject.CN).toBe("media.example.com");
    expect(cert.subjectaltname).toBe("DNS:media.example.com");
    expect(new X509Certificate(cert.raw).checkIssued(new X509Certificate(interceptor.caPem))).toBe(true);
    const seen = received.at(-1)!;
    expect(seen.head).toMatch(/^CONNECT 10\.77\.4\.9:443 HTTP\/1\.1\r\n/);
    expect(seen.head).toMatch(/\r\nX-Tls-Sni: media\.example\.com(\r\n|$)/);
    expect(seen.head).not.toMatch(/X-Hostname/);
    expect(seen.body).toMatch(/^GET \/clip\.mp4 HTTP\/1\.1\r\nHost: media\.example\.com/);
  });

  it("resets the connection when workerd refuses the tunnel", async () => {
    workerdAnswer = "HTTP/1.1 400 Bad Request\r\n\r\n";
    destination = { address: "11.0.0.1", port: 443 };
    await expect(httpsGet("refused.example.com")).rejects.toThrow(/ECONNRESET|socket disconnected/);
  });

  it("sends a port-80 request's Host as X-Hostname, with the connection's real destination", async () => {
    workerdAnswer = "HTTP/1.1 200 OK\r\n\r\n";
    for (const [host, address] of [
      ["media.example.com", "192.31.196.150"],
      ["203.0.113.7", "203.0.113.7"],
    ]) {
      destination = { address, port: 80 };
      await rawSend(`GET / HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
      await expect.poll(() => received.at(-1)?.head ?? "").toContain(`X-Hostname: ${host}`);
      expect(received.at(-1)!.head).toMatch(new RegExp(`^CONNECT ${address.replaceAll(".", "\\.")}:80 `));
    }
  });

  it("hands workerd every port: plain bytes elsewhere go without hints, and a 202 passes them on until workerd closes", async () => {
    workerdAnswer = "HTTP/1.1 202 Accepted\r\n\r\n";
    destination = { address: "192.31.196.10", port: 8080 };
    const before = received.length;
    expect(await rawSend("GET /healthz HTTP/1.1\r\nHost: media.example.com\r\n\r\n")).toBe("closed");
    await expect.poll(() => received.length).toBe(before + 1);
    expect(received.at(-1)!.head).toMatch(/^CONNECT 192\.31\.196\.10:8080 HTTP\/1\.1\r\n/);
    expect(received.at(-1)!.head).not.toMatch(/X-Hostname|X-Tls-Sni/);
  });

  it("decides on SNI from at most 4 KiB of a ClientHello, as upstream's 4 KiB buffer does", async () => {
    workerdAnswer = "HTTP/1.1 202 Accepted\r\n\r\n";
    destination = { address: "11.0.0.1", port: 443 };
    // A record that claims 16 KiB and names its server early: upstream parses the first 4 KiB and goes on.
    const name = Buffer.from("big.example.com");
    const sniExt = Buffer.concat([
      Buffer.from([0, 0, 0, name.length + 5, 0, name.length + 3, 0, 0, name.length]),
      name,
    ]);
    const hello = Buffer.concat([
      Buffer.from([1, 0, 0x3f, 0xfb, 3, 3]),
      Buffer.alloc(32),
      Buffer.from([0, 0, 2, 0x13, 1, 1, 0, 0x3f, 0xd0]),
      sniExt,
    ]);
    const record = Buffer.concat([Buffer.from([0x16, 3, 1, 0x40, 0]), hello, Buffer.alloc(4096)]).subarray(0, 4096);
    const before = received.length;
    expect(await rawSend(record)).toBe("closed");
    await expect.poll(() => received.length).toBe(before + 1);
    expect(received.at(-1)!.head).toContain("X-Tls-Sni: big.example.com");
  });

  it("finds the SNI in a real ClientHello, and none in other bytes", () => {
    expect(extractSni(Buffer.from("GET / HTTP/1.1\r\n\r\n"))).toBe("");
    expect(extractSni(Buffer.from([0x16, 3, 1, 0, 2, 1, 0]))).toBe("");
  });
});
