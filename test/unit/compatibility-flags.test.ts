import { resolve } from "node:path";
import { unstable_readConfig } from "wrangler";
import { describe, expect, it } from "vitest";

/**
 * The production config as wrangler reads it (its own parser, the file `wrangler deploy` uploads). Behind
 * a custom domain, a Worker's fetch() to a host of its own zone goes straight to the zone's origin servers
 * unless global_fetch_strictly_public is set: a container's egress (whose addresses the Worker checks as
 * public, as a zone's proxied names are) would reach origins the operator keeps behind WAF and Access.
 * Only the platform routes by zone, so this config is what can be checked here.
 */
describe("the Worker's compatibility flags", () => {
  const config = unstable_readConfig({ config: resolve(import.meta.dirname, "../../wrangler.toml") });

  it("route every fetch() as a request from the Internet, even to the operator's own zone", () => {
    expect(config.compatibility_flags).toContain("global_fetch_strictly_public");
    expect(config.compatibility_flags).not.toContain("global_fetch_private_origin");
  });

  it("keep Node's APIs the Worker imports", () => {
    expect(config.compatibility_flags).toContain("nodejs_compat");
  });
});
