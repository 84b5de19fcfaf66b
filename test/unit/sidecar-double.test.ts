import { describe, expect, it } from "vitest";
import { dnsAnswer } from "../../lab/egress-sidecar/dns.ts";
import { destinationOf } from "../../lab/egress-sidecar/egress.ts";

/** The lab's egress sidecar test double: what it reads from the container's traffic. */
function query(name: string, qtype: number): Buffer {
  const labels = name.split(".").flatMap((l) => [l.length, ...Buffer.from(l)]);
  return Buffer.from([0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0, ...labels, 0, 0, qtype, 0, 1]);
}

describe("the sidecar double's DNS", () => {
  it("answers an A query for any name with the one made-up address, echoing id and question", () => {
    const reply = dnsAnswer(query("runner-notify.ffjobs.internal", 1))!;
    expect(reply.readUInt16BE(0)).toBe(0x1234);
    expect(reply.readUInt16BE(6)).toBe(1);
    expect([...reply.subarray(reply.length - 4)]).toEqual([11, 0, 0, 1]);
  });

  it("answers other types with no record, and ignores garbage", () => {
    expect(dnsAnswer(query("example.com", 28))!.readUInt16BE(6)).toBe(0);
    expect(dnsAnswer(Buffer.from([1, 2, 3]))).toBeNull();
  });
});

describe("the sidecar double's egress", () => {
  it("takes the destination from the Host header: an IP as is, a name at the made-up address", () => {
    expect(destinationOf("GET /x HTTP/1.1\r\nHost: 127.0.0.4\r\n\r\n")).toEqual({ ip: "127.0.0.4", port: 80, hostHeader: "127.0.0.4" });
    expect(destinationOf("POST /jobs/1 HTTP/1.1\r\nhost: runner-notify.ffjobs.internal\r\n\r\n")).toMatchObject({ ip: "11.0.0.1", port: 80 });
    expect(destinationOf("GET / HTTP/1.1\r\nHost: 127.0.0.4:8080\r\n\r\n")).toMatchObject({ port: 8080 });
  });

  it("refuses what is not an HTTP/1 request with a Host", () => {
    expect(destinationOf("\x16\x03\x01 TLS hello")).toBeNull();
    expect(destinationOf("GET / HTTP/1.1\r\n\r\n")).toBeNull();
  });
});
