// DNS for the app container, as cloudflare/proxy-everything dns.go answers it (`-dns-enabled`,
// which workerd always passes). Every UDP query to port 53 is intercepted (interception.ts). With the
// container's internet off (ffjobs sets enableInternet = false): a query whose first question matches
// the allow patterns workerd sent (`dns.allowHostnames`; "*" once an intercept-all outbound handler is
// set) gets, for every question, the placeholder answers A 11.0.0.1 and AAAA fd00::1 (both for ANY),
// authoritative, TTL 60; any other query NXDOMAIN, one with no question included. With internet on,
// upstream relays the query to the original resolver; this double has no resolver it may reach
// (nothing leaves the machine), so it answers SERVFAIL there.
//
// Cloudflare's documentation says production's outbound configuration decides which lookups resolve,
// and to what: the double can also answer as a platform that hands out real public addresses
// (`public`) or private ones, as a sandboxing proxy may (`private`), so the runner is shown to decide
// nothing from the answer (DNS_MODES; chosen by SIDECAR_DNS_MODE, which the lab's runtime sets).
import dgram from "node:dgram";
import { dnsNameAllowed, type EgressConfig } from "./egress-config.ts";

export const DNS_PORT = 5353;

/** What an allowed name resolves to: upstream's placeholders, or one address per name a platform might give. */
export type DnsMode = "placeholder" | "public" | "private";
export const DNS_MODES: readonly DnsMode[] = ["placeholder", "public", "private"];

/** A stable 16-bit number per name (FNV-1a), so a name keeps its address across queries. */
function nameHash(name: string): number {
  let h = 0x811c9dc5;
  for (const c of name.toLowerCase().replace(/\.$/, "")) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193);
  return (h >>> 0) & 0xffff;
}

/**
 * The A and AAAA data for a name: upstream's `dnsAllowedIPv4`/`dnsAllowedIPv6` (11.0.0.1, fd00::1);
 * public: AS112 addresses (RFC 7534; public, and on this machine routed nowhere but the suite's own
 * namespace) above the suite's test hosts; private: 10.x.y.z and a ULA, as a sandboxing proxy might.
 */
export function answerAddresses(mode: DnsMode, name: string): { v4: number[]; v6: number[] } {
  const h = nameHash(name);
  if (mode === "public")
    return {
      v4: [192, 31, 196, 128 + (h & 0x7f)],
      v6: [0x26, 0x20, 0, 0x4f, 0x80, 0, ...Array(8).fill(0), h >> 8, h & 0xff],
    };
  if (mode === "private")
    return { v4: [10, 77, h >> 8, (h & 0xff) | 1], v6: [0xfd, 0x77, ...Array(12).fill(0), h >> 8, h & 0xff] };
  return { v4: [11, 0, 0, 1], v6: [0xfd, 0, ...Array(13).fill(0), 1] };
}

const TYPE_A = 1;
const TYPE_AAAA = 28;
const TYPE_ANY = 255;
const RCODE_SERVFAIL = 2;
const RCODE_NXDOMAIN = 3;
const TTL_SECONDS = 60;

type Question = { name: string; qtype: number; qclass: number; end: number };

/** The questions of a query, each with where it ends, or null when malformed (upstream drops what `Unpack` refuses). */
export function questions(query: Buffer): Question[] | null {
  if (query.length < 12) return null;
  const list: Question[] = [];
  let at = 12;
  for (let i = 0; i < query.readUInt16BE(4); i++) {
    const labels: string[] = [];
    while (at < query.length && query[at] !== 0) {
      const len = query[at];
      if (len > 63 || at + 1 + len > query.length) return null; // compression is not valid in a question
      labels.push(query.toString("latin1", at + 1, at + 1 + len));
      at += 1 + len;
    }
    if (at + 5 > query.length) return null;
    list.push({
      name: `${labels.join(".")}.`,
      qtype: query.readUInt16BE(at + 1),
      qclass: query.readUInt16BE(at + 3),
      end: at + 5,
    });
    at += 5;
  }
  return list;
}

function header(
  query: Buffer,
  opts: { rcode: number; authoritative: boolean; questions: number; answers: number },
): Buffer {
  const h = Buffer.alloc(12);
  query.copy(h, 0, 0, 2); // id
  const opcode = (query[2] >> 3) & 0x0f;
  // miekg/dns SetReply: QR and the query's opcode; RD and CD copied for a standard query; upstream clears RA.
  const recursionDesired = opcode === 0 ? query[2] & 0x01 : 0;
  const checkingDisabled = opcode === 0 ? query[3] & 0x10 : 0;
  h[2] = 0x80 | (opcode << 3) | (opts.authoritative ? 0x04 : 0) | recursionDesired;
  h[3] = checkingDisabled | (opts.rcode & 0x0f);
  h.writeUInt16BE(opts.questions, 4);
  h.writeUInt16BE(opts.answers, 6);
  return h;
}

/** An answer record, its name written out (upstream packs with `Compress = false`). */
function record(name: string, type: number, qclass: number, data: number[]): Buffer {
  const owner = Buffer.from([
    ...name
      .split(".")
      .filter(Boolean)
      .flatMap((l) => [l.length, ...Buffer.from(l, "latin1")]),
    0,
  ]);
  const fixed = Buffer.alloc(10);
  fixed.writeUInt16BE(type, 0);
  fixed.writeUInt16BE(qclass, 2);
  fixed.writeUInt32BE(TTL_SECONDS, 4);
  fixed.writeUInt16BE(data.length, 8);
  return Buffer.concat([owner, fixed, Buffer.from(data)]);
}

/** The answer upstream gives with the container's internet off (`handlePacket`, `dnsAllowedResponse`). */
export function dnsAnswer(query: Buffer, config: EgressConfig, mode: DnsMode = "placeholder"): Buffer | null {
  const asked = questions(query);
  if (!asked) return null; // upstream drops what it cannot unpack
  // miekg/dns SetReply echoes the first question only; dnsAllowedResponse answers every one.
  const echoed = asked.length ? query.subarray(12, asked[0].end) : Buffer.alloc(0);
  const reply = (rcode: number, authoritative: boolean, answers: Buffer[]) =>
    Buffer.concat([
      header(query, { rcode, authoritative, questions: asked.length ? 1 : 0, answers: answers.length }),
      echoed,
      ...answers,
    ]);
  if (config.internetEnabled) return reply(RCODE_SERVFAIL, false, []);
  const allowed = asked.length > 0 && dnsNameAllowed(config.dnsAllowPatterns, asked[0].name);
  if (!allowed) return reply(RCODE_NXDOMAIN, false, []);
  const answers = asked.flatMap((q) => {
    const { v4, v6 } = answerAddresses(mode, q.name);
    return [
      ...(q.qtype === TYPE_A || q.qtype === TYPE_ANY ? [record(q.name, TYPE_A, q.qclass, v4)] : []),
      ...(q.qtype === TYPE_AAAA || q.qtype === TYPE_ANY ? [record(q.name, TYPE_AAAA, q.qclass, v6)] : []),
    ];
  });
  return reply(0, true, answers);
}

export function startDns(address: string, config: EgressConfig, mode: DnsMode): dgram.Socket {
  const socket = dgram.createSocket("udp4");
  socket.on("message", (msg, from) => {
    const reply = dnsAnswer(msg, config, mode);
    if (reply) socket.send(reply, from.port, from.address);
  });
  socket.bind(DNS_PORT, address);
  return socket;
}
