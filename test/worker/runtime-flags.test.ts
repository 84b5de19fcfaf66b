import { describe, expect, it } from "vitest";

/** The workers runtime runs the Worker with wrangler.toml's flags: this one is accepted, not experimental, and on. */
describe("the Worker's runtime", () => {
  it("has global_fetch_strictly_public on (test/unit/compatibility-flags.test.ts says why)", () => {
    expect(Cloudflare.compatibilityFlags.global_fetch_strictly_public).toBe(true);
  });
});
