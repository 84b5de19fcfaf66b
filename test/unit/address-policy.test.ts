import { describe, expect, it } from "vitest";
import { isAllowedPrivateHost, isPublicAddress, parseIPv6 } from "../../src/net/address-policy.ts";

describe("address policy", () => {
  it.each([
    "127.0.0.1",
    "127.255.255.254",
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "224.0.0.1",
    "255.255.255.255",
    "198.18.0.1",
    "192.0.2.10",
    "::1",
    "::",
    "fe80::1",
    "fc00::1",
    "fd12:3456::1",
    "ff02::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:169.254.169.254",
    "64:ff9b::a9fe:a9fe",
    "2002:7f00:1::",
    "::127.0.0.1",
  ])("denies %s", (addr) => {
    expect(isPublicAddress(addr)).toBe(false);
  });

  it.each([
    "1.1.1.1",
    "8.8.8.8",
    "172.32.0.1",
    "100.128.0.1",
    "2606:4700:4700::1111",
    "::ffff:8.8.8.8",
    "2002:0808:0808::",
  ])("allows %s", (addr) => {
    expect(isPublicAddress(addr)).toBe(true);
  });

  it("treats unparseable input as not public", () => {
    expect(isPublicAddress("not-an-ip")).toBe(false);
    expect(isPublicAddress("1.2.3")).toBe(false);
    expect(isPublicAddress("fe80::1%eth0")).toBe(false);
  });

  it("parses compressed IPv6 forms", () => {
    expect(parseIPv6("::1")).toBe(1n);
    expect(parseIPv6("[::ffff:127.0.0.1]")).toBe(0xffff7f000001n);
    expect(parseIPv6("1:2:3:4:5:6:7:8:9")).toBeNull();
  });

  it("matches operator-allowed hosts exactly, ignoring case and brackets", () => {
    expect(isAllowedPrivateHost("Media.Internal", ["media.internal"])).toBe(true);
    expect(isAllowedPrivateHost("[::1]", ["::1"])).toBe(true);
    expect(isAllowedPrivateHost("evil.media.internal", ["media.internal"])).toBe(false);
  });
});
