import { describe, expect, it } from "vitest";
import { answerRefusal } from "../../container/src/safe-fetch.ts";
import { bypassesSidecar, defaultGatewayIPv4, sidecarBypassNetworks } from "../../container/src/sidecar-bypass.ts";

/** A container on a Docker bridge, as `os.networkInterfaces()` and /proc/net/route show it. */
const interfaces = {
  lo: [
    {
      address: "127.0.0.1",
      netmask: "255.0.0.0",
      family: "IPv4",
      mac: "00:00:00:00:00:00",
      internal: true,
      cidr: "127.0.0.1/8",
    },
    {
      address: "::1",
      netmask: "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
      family: "IPv6",
      mac: "00:00:00:00:00:00",
      internal: true,
      cidr: "::1/128",
      scopeid: 0,
    },
  ],
  eth0: [
    {
      address: "172.31.213.2",
      netmask: "255.255.255.0",
      family: "IPv4",
      mac: "02:42:ac:1f:d5:02",
      internal: false,
      cidr: "172.31.213.2/24",
    },
  ],
} as const;
const routes =
  "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\neth0\t00000000\t01D51FAC\t0003\t0\t0\t0\t00000000\t0\t0\t0\neth0\t00D51FAC\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n";
const bypass = sidecarBypassNetworks(interfaces as never, routes);

describe("what the runner makes of the container's DNS answers behind Cloudflare's sidecar", () => {
  it("accepts every answer the sidecar carries to the Worker: placeholders, public and private addresses alike", () => {
    for (const answers of [
      ["11.0.0.1", "fd00::1"],
      ["192.31.196.10", "2620:4f:8000::10"],
      ["10.200.7.9", "fd12:3456::9"],
      ["100.64.0.7"],
    ]) {
      expect(answerRefusal(answers, false, bypass), answers.join()).toBeNull();
    }
  });

  it("refuses an answer the sidecar leaves alone, even for the service's own hosts: that connection would skip the Worker", () => {
    for (const address of [
      "127.0.0.1",
      "127.9.9.9",
      "::1",
      "0.0.0.0",
      "::",
      "::ffff:127.0.0.1",
      "172.31.213.9",
      "172.31.213.1",
    ]) {
      expect(answerRefusal(["11.0.0.1", address], true, bypass), address).toBe(
        `${address} would not go through the platform's egress`,
      );
    }
    expect(answerRefusal([], false, bypass)).toBe("the name has no address");
  });

  it("without the sidecar every address must be public, unless the host is exempt", () => {
    expect(answerRefusal(["93.184.216.34"], false, null)).toBeNull();
    expect(answerRefusal(["93.184.216.34", "10.0.0.1"], false, null)).toBe("the address is not publicly routable");
    expect(answerRefusal(["11.0.0.1"], false, null)).toBeNull();
    expect(answerRefusal(["fd00::1"], false, null)).toBe("the address is not publicly routable");
    expect(answerRefusal(["10.0.0.1"], true, null)).toBeNull();
  });

  it("reads the networks the sidecar leaves alone from the container's interfaces and default route", () => {
    expect(defaultGatewayIPv4(routes)).toBe("172.31.213.1");
    expect(defaultGatewayIPv4("Iface\tDestination\tGateway\n")).toBeNull();
    // A gateway outside the container's own network still has its /24 left alone (main.go: egressIP/24).
    const apart = sidecarBypassNetworks(interfaces as never, routes.replace("01D51FAC", "0101A8C0"));
    expect(bypassesSidecar("192.168.1.77", apart)).toBe(true);
    expect(bypassesSidecar("192.168.2.1", apart)).toBe(false);
    expect(bypassesSidecar("not-an-address", bypass)).toBe(true);
  });
});
