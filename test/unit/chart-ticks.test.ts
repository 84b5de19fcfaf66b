import { describe, expect, it } from "vitest";
// @ts-expect-error: the dashboard's browser module (plain JavaScript, no types).
import { tickLabel } from "../../dashboard/public/dashboard/charts.js";

describe("the Metrics charts' axis ticks", () => {
  it("stay short enough for the axis margin whatever the scale (10000 ms was cut to 0000 ms)", () => {
    expect(tickLabel(10_000, " ms")).toBe("10k ms");
    expect(tickLabel(5_000, " ms")).toBe("5000 ms");
    expect(tickLabel(2_500_000, " ms")).toBe("2.5M ms");
    expect(tickLabel(0.5, "")).toBe("0.5");
    for (const v of [0, 1, 99.95, 9_999, 10_000, 123_456, 9_999_999, 5e9])
      expect(tickLabel(v, " ms").length, String(v)).toBeLessThanOrEqual(8);
  });
});
