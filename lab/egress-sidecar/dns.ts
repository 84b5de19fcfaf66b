// DNS for the app container, as cloudflare/proxy-everything dns.go answers it (`-dns-enabled`,
// which workerd always passes). Every UDP query to port 53 is intercepted. With the container's
// internet off (ffjobs sets enableInternet = false): a name matching the allow patterns workerd
// sent (`dns.allowHostnames`; "*" once an intercept-all outbound handler is set) gets the
// fallback answers A 11.0.0.1 and AAAA fd00::1 (both for ANY), authoritative, TTL 60; any other
// name NXDOMAIN. With internet on, upstream relays the query to the original resolver; this
// double has no resolver it may reach (nothing leaves the machine), so it answers SERVFAIL there.
import dgram from "node:dgram";
import { dnsNameAllowed, type EgressConfig } from "./egress-config.ts";

export const DNS_PORT = 5353;
export const FALLBACK_IPV4 = [11, 0, 0, 1];
/** fd00::1 */
export const FALLBACK_IPV6 = [0xfd, 0, ...Array(13).fill(0), 1];

const TYPE_A = 1;
const TYPE_AAAA = 28;
const TYPE_ANY = 255;
const RCODE_SERVFAIL = 2;
const RCODE_NXDOMAIN = 3;
const TTL_SECONDS = 60;

type Question = { name: string; qtype: number; qclass: number; end: number };

/** The first question of a query (upstream decides on `Question[0]`), or null when malformed. */
export function firstQuestion(query: Buffer): Question | null {
  if (query.length < 12 || query.readUInt16BE(4) < 1) return null;
  const labels: string[] = [];
  let at = 12;
  while (at < query.length && query[at] !== 0) {
    const len = query[at];
    if (len > 63 || at + 1 + len > query.length) return null; // compression is not valid in a question
    labels.push(query.toString("latin1", at + 1, at + 1 + len));
    at += 1 + len;
  }
  if (at + 5 > query.length) return null;
  return { name: `${labels.join(".")}.`, qtype: query.readUInt16BE(at + 1), qclass: query.readUInt16BE(at + 3), end: at + 5 };
}

function header(query: Buffer, opts: { rcode: number; authoritative: boolean; answers: number }): Buffer {
  const h = Buffer.alloc(12);
  query.copy(h, 0, 0, 2); // id
  const opcode = (query[2] >> 3) & 0x0f;
  const recursionDesired = query[2] & 0x01;
  // miekg/dns SetReply: QR, the query's opcode and RD; upstream clears RA.
  h[2] = 0x80 | (opcode << 3) | (opts.authoritative ? 0x04 : 0) | recursionDesired;
  h[3] = opts.rcode & 0x0f;
  h.writeUInt16BE(1, 4);
  h.writeUInt16BE(opts.answers, 6);
  return h;
}

function record(type: number, qclass: number, data: number[]): Buffer {
  const rr = Buffer.alloc(12 + data.length);
  rr.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
  rr.writeUInt16BE(type, 2);
  rr.writeUInt16BE(qclass, 4);
  rr.writeUInt32BE(TTL_SECONDS, 6);
  rr.writeUInt16BE(data.length, 10);
  Buffer.from(data).copy(rr, 12);
  return rr;
}

/** The answer upstream gives with the container's internet off. */
export function dnsAnswer(query: Buffer, config: EgressConfig): Buffer | null {
  const q = firstQuestion(query);
  if (!q) return null; // upstream drops what it cannot unpack
  const question = query.subarray(12, q.end);
  if (config.internetEnabled) return Buffer.concat([header(query, { rcode: RCODE_SERVFAIL, authoritative: false, answers: 0 }), question]);
  if (!dnsNameAllowed(config.dnsAllowPatterns, q.name)) {
    return Buffer.concat([header(query, { rcode: RCODE_NXDOMAIN, authoritative: false, answers: 0 }), question]);
  }
  const answers = [
    ...(q.qtype === TYPE_A || q.qtype === TYPE_ANY ? [record(TYPE_A, q.qclass, FALLBACK_IPV4)] : []),
    ...(q.qtype === TYPE_AAAA || q.qtype === TYPE_ANY ? [record(TYPE_AAAA, q.qclass, FALLBACK_IPV6)] : []),
  ];
  return Buffer.concat([header(query, { rcode: 0, authoritative: true, answers: answers.length }), question, ...answers]);
}

export function startDns(address: string, config: EgressConfig): dgram.Socket {
  const socket = dgram.createSocket("udp4");
  socket.on("message", (msg, from) => {
    const reply = dnsAnswer(msg, config);
    if (reply) socket.send(reply, from.port, from.address);
  });
  socket.bind(DNS_PORT, address);
  return socket;
}
