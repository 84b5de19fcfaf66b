// DNS for the app container, as the real sidecar answers it while the container has no internet:
// every name gets the same made-up address (A 11.0.0.1; no AAAA), so a connection to any host
// reaches the egress proxy, which sends it to workerd by its Host header. Nothing is forwarded.
import dgram from "node:dgram";

export const DNS_PORT = 5353;
export const FAKE_ADDRESS = [11, 0, 0, 1];

/** An answer to a standard query: the question echoed, plus one A record when it asked for A. */
export function dnsAnswer(query: Buffer): Buffer | null {
  if (query.length < 12) return null;
  let at = 12;
  while (at < query.length && query[at] !== 0) at += query[at] + 1;
  const questionEnd = at + 5;
  if (questionEnd > query.length) return null;
  const qtype = query.readUInt16BE(at + 1);
  const isA = qtype === 1;
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2);
  header.writeUInt16BE(0x8180, 2); // response, recursion desired + available, no error
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(isA ? 1 : 0, 6);
  const question = query.subarray(12, questionEnd);
  const answer = Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, ...FAKE_ADDRESS]);
  return Buffer.concat([header, question, ...(isA ? [answer] : [])]);
}

export function startDns(address: string): dgram.Socket {
  const socket = dgram.createSocket("udp4");
  socket.on("message", (msg, from) => {
    const reply = dnsAnswer(msg);
    if (reply) socket.send(reply, from.port, from.address);
  });
  socket.bind(DNS_PORT, address);
  return socket;
}
