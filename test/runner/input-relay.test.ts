import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { INPUT_RELAY, PERL } from "../../container/src/sandbox.ts";

/**
 * The input relay writes Linux's socket numbers and address layouts itself (loading Perl's Socket
 * module cost most of its start-up, paid by every command reading a streamed input). Here its own
 * definitions, taken from the script, are compared with what Socket says on this machine.
 */
const relay = readFileSync(INPUT_RELAY, "utf8");
const definitions = relay.split("\n").filter((l) => /^sub (AF_|SOCK_|SOL_|SO_|loopback_address|unix_address)/.test(l));

const perl = (code: string) => execFileSync(PERL, ["-e", code], { encoding: "utf8" });

describe("the input relay's socket definitions", () => {
  it("defines every socket number and address it uses", () => {
    expect(definitions.map((l) => /^sub (\w+)/.exec(l)![1]).sort()).toEqual([
      "AF_INET",
      "AF_UNIX",
      "SOCK_STREAM",
      "SOL_SOCKET",
      "SO_RCVBUF",
      "SO_REUSEADDR",
      "SO_SNDBUF",
      "loopback_address",
      "unix_address",
    ]);
    expect(relay).not.toMatch(/^use (Socket|POSIX)/m);
  });

  it("has the numbers and layouts Perl's Socket module has here", () => {
    const names = definitions.map((l) => /^sub (\w+)/.exec(l)![1]).filter((n) => n === n.toUpperCase());
    const compare = [
      "package Relay;",
      ...definitions,
      "package main; use Socket ();",
      ...names.map((n) => `print "${n} ", Relay::${n}(), " ", Socket::${n}(), "\\n";`),
      `print "loopback ", unpack("H*", Relay::loopback_address(8080)), " ", unpack("H*", Socket::sockaddr_in(8080, Socket::inet_aton("127.0.0.1"))), "\\n";`,
      `print "unix ", unpack("H*", Relay::unix_address("/job/io/in.sock")), " ", unpack("H*", Socket::pack_sockaddr_un("/job/io/in.sock")), "\\n";`,
    ].join("\n");
    const lines = perl(compare)
      .trim()
      .split("\n")
      .map((l) => l.split(" "));
    expect(lines).toHaveLength(names.length + 2);
    for (const [name, ours, theirs] of lines) expect({ name, value: ours }).toEqual({ name, value: theirs });
  });
});
